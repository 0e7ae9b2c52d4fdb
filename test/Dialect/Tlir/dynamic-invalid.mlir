// What a `?` (a multiple of the batch) cannot do: each refusal names the op
// and the rule that needs the batch's value.
// RUN: tlir-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @conv_spatial(%x: tensor<1x2x?x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: a rule compares a batch-sized extent '?', unknown before the call
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x?x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x?x4xf32>
  func.return
}

// -----

func.func @reshape_static_to_batch(%x: tensor<2x3xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reshape: cannot reshape [2, 3] (6 elements) to [?, 3] (? elements)
  %0 = tlir.reshape %x : (tensor<2x3xf32>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @broadcast_batch_to_static(%x: tensor<?x3xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.broadcast_to: cannot broadcast [?, 3] to [4, 3]: extent ? at source axis 0 is neither 1 nor 4
  %0 = tlir.broadcast_to %x : (tensor<?x3xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @add_batch_and_static(%x: tensor<?x3xf32>, %y: tensor<2x3xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.add: operand shapes [?, 3] and [2, 3] differ
  %0 = tlir.add %x, %y : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @concat_batch_and_static(%x: tensor<?x3xf32>, %y: tensor<2x3xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.concat: the sum of a batch-sized extent and 2 is not a multiple of the batch
  %0 = tlir.concat %x, %y axis = 0 : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @linear_contracts_batch(%x: tensor<3x?xf32>, %w: tensor<4x5xf32>, %b: tensor<4xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.linear: input last extent ? does not match in_dim = 5
  %0 = tlir.linear %x, %w, %b : (tensor<3x?xf32>, tensor<4x5xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @custom_is_static(%x: tensor<?x3xf32>) {
  // CHECK: dynamic-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.custom: tensor shapes must be static, got tensor<?x3xf32>
  %0 = tlir.custom @f(%x) {name = "f"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  func.return
}
func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  func.return %x : tensor<?x3xf32>
}
