// tlir-specialize-batch: every `?` takes its extent at the batch given: the
// arguments' leading `?` is the batch, results follow the ops' rules, a
// reshape solves its one `?`, a broadcast from 1 takes the extent of the
// operand it is combined with.
// RUN: tlir-opt %s --split-input-file --verify-diagnostics -p 'tlir-specialize-batch{batch=5}' | filecheck %s
// RUN: tlir-opt %s --split-input-file --verify-diagnostics -p 'tlir-specialize-batch{batch=1}' | filecheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<5x1x4x4xf32>) -> (tensor<5x3xf32>, tensor<80xf32>, tensor<10x8xf32>)
// CHECK: tlir.reshape %{{.*}} : (tensor<5x1x4x4xf32>) -> tensor<5x16xf32>
// CHECK: tlir.flatten %{{.*}} : (tensor<5x16xf32>) -> tensor<80xf32>
// CHECK: tlir.reshape %{{.*}} : (tensor<80xf32>) -> tensor<10x8xf32>
// CHECK: tlir.linear %{{.*}} -> tensor<5x3xf32>
// ONE-LABEL: func.func @main
// ONE-SAME: (%{{.*}}: tensor<1x1x4x4xf32>) -> (tensor<1x3xf32>, tensor<16xf32>, tensor<2x8xf32>)
func.func @main(%x: tensor<?x1x4x4xf32>) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<?x8xf32>) {
  %w = tlir.const {value = dense<0.5> : tensor<3x16xf32>} : tensor<3x16xf32>
  %b = tlir.const {value = dense<0.25> : tensor<3xf32>} : tensor<3xf32>
  %r = tlir.reshape %x : (tensor<?x1x4x4xf32>) -> tensor<?x16xf32>
  %f = tlir.flatten %r : (tensor<?x16xf32>) -> tensor<?xf32>
  %h = tlir.reshape %f : (tensor<?xf32>) -> tensor<?x8xf32>
  %y = tlir.linear %r, %w, %b : (tensor<?x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  func.return %y, %f, %h : tensor<?x3xf32>, tensor<?xf32>, tensor<?x8xf32>
}

// -----

// A scalar met by a tensor of 2·B rows: its broadcast takes 2·B (the other operand's).
// CHECK-LABEL: func.func @main
// CHECK: tlir.broadcast_to %{{.*}} : (tensor<1x3xf64>) -> tensor<10x3xf64>
// CHECK: tlir.mul_elem %{{.*}}, %{{.*}} : (tensor<10x3xf64>, tensor<10x3xf64>) -> tensor<10x3xf64>
func.func @main(%x: tensor<?x2x3xf64>) -> tensor<?x3xf64> {
  %s = tlir.const {value = dense<2.0> : tensor<1x3xf64>} : tensor<1x3xf64>
  %r = tlir.reshape %x : (tensor<?x2x3xf64>) -> tensor<?x3xf64>
  %b = tlir.broadcast_to %s : (tensor<1x3xf64>) -> tensor<?x3xf64>
  %y = tlir.mul_elem %r, %b : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  func.return %y : tensor<?x3xf64>
}

// -----

func.func @main(%x: tensor<?x6xf32>) -> tensor<?x4xf32> {
  // CHECK: specialize.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reshape: reshape of 30 elements to [?, 4] would split the batch (batch 5)
  %r = tlir.reshape %x : (tensor<?x6xf32>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

func.func @main(%x: tensor<?x6xf32>) -> tensor<?x?xf32> {
  // CHECK: specialize.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reshape: an extent would be a product of two batch-sized extents
  %r = tlir.reshape %x : (tensor<?x6xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

// CHECK: specialize.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: @main: input 0 has a '?' off its leading axis (tensor<3x?xf32>); only the leading axis can be the batch
func.func @main(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %r = tlir.relu %x : (tensor<3x?xf32>) -> tensor<3x?xf32>
  func.return %r : tensor<3x?xf32>
}
