// The tlir_ad verifiers: shapes, element types, bodies, in-bounds reads.
// RUN: tlir-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @map_shape(%a: tensor<3xf64>, %b: tensor<2xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.map: operand shape [2] is neither the result shape [3] nor a scalar
  %r = tlir_ad.map(%a, %b) : (tensor<3xf64>, tensor<2xf64>) -> tensor<3xf64> {
  ^bb0(%x: f64, %y: f64):
    tlir_ad.yield %x : f64
  }
  func.return
}

// -----

func.func @map_element(%a: tensor<3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.map: the body takes 1 scalars of type f64, got (f32)
  %r = tlir_ad.map(%a) : (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%x: f32):
    tlir_ad.yield %x : f32
  }
  func.return
}

// -----

func.func @map_body(%a: tensor<3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.map: 'math.atan' is not allowed in the body
  %r = tlir_ad.map(%a) : (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%x: f64):
    %t = math.atan %x : f64
    tlir_ad.yield %t : f64
  }
  func.return
}

// -----

func.func @map_yield(%a: tensor<3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.map: the body must yield 2 values of f64
  %r, %s = tlir_ad.map(%a) : (tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  ^bb0(%x: f64):
    tlir_ad.yield %x : f64
  }
  func.return
}

// -----

func.func @fold_out_of_bounds(%a: tensor<4xf64>, %z: tensor<3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.fold: map 0 reads axis 0 at [0, 4], outside [0, 4)
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 3, 2>, maps = [affine_map<(d0, d1) -> (d0 + d1 * 2)>], iterators = ["parallel", "reduction"]} : (tensor<4xf64>), (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%x: f64, %acc: f64):
    tlir_ad.yield %acc : f64
  }
  func.return
}

// -----

func.func @fold_result_shape(%a: tensor<3xf64>, %z: tensor<2xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.fold: result shape [2] is not the parallel bounds [3]
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 3>, maps = [affine_map<(d0) -> (d0)>], iterators = ["parallel"]} : (tensor<3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%x: f64, %acc: f64):
    tlir_ad.yield %x : f64
  }
  func.return
}

// -----

func.func @fold_iterators(%a: tensor<3xf64>, %z: tensor<3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.fold: one iterator ('parallel' or 'reduction') per bound
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 3>, maps = [affine_map<(d0) -> (d0)>], iterators = ["window"]} : (tensor<3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%x: f64, %acc: f64):
    tlir_ad.yield %x : f64
  }
  func.return
}

// -----

func.func @pad_shape(%a: tensor<3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.pad: result shape [7] should be [8]
  %p = tlir_ad.pad %a {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf64>) -> tensor<7xf64>
  func.return
}

// -----

func.func @conv_input_grad_channels(%g: tensor<2x5x4xf64>, %wt: tensor<3x2x3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_input_grad: weight [3, 2, 3] must be [in_channels = 3, out_channels / groups = 5 / 1, kernel…]
  %dx = tlir_ad.conv_input_grad %g, %wt {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 1 : i64} : (tensor<2x5x4xf64>, tensor<3x2x3xf64>) -> tensor<2x3x4xf64>
  func.return
}

// -----

func.func @conv_input_grad_stride(%g: tensor<2x2x4xf64>, %wt: tensor<3x2x3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_input_grad: stride and dilation ≥ 1, padding ≥ 0
  %dx = tlir_ad.conv_input_grad %g, %wt {stride = array<i64: 0>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 1 : i64} : (tensor<2x2x4xf64>, tensor<3x2x3xf64>) -> tensor<2x3x4xf64>
  func.return
}

// -----

func.func @conv_input_grad_rank(%g: tensor<2x4xf64>, %wt: tensor<3x2x3xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_input_grad: cotangent [2, 4] and result [2, 3, 4] must be [lead…, channels, spatial…] with 1 spatial axes after axis 1
  %dx = tlir_ad.conv_input_grad %g, %wt {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 1 : i64} : (tensor<2x4xf64>, tensor<3x2x3xf64>) -> tensor<2x3x4xf64>
  func.return
}

// -----

func.func @conv_kernel_grad_channels(%x: tensor<2x3x6xf64>, %g: tensor<2x5x4xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_kernel_grad: result [3, 3, 4] must be [in_channels = 3, kernel…, out_channels = 5]
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 1>, dilation = array<i64: 1>, channel_axis = 1 : i64} : (tensor<2x3x6xf64>, tensor<2x5x4xf64>) -> tensor<3x3x4xf64>
  func.return
}

// -----

func.func @conv_kernel_grad_reach(%x: tensor<2x3x6xf64>, %g: tensor<2x5x4xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_kernel_grad: windows of spatial axis 0 reach past the input (6)
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 1>, dilation = array<i64: 2>, channel_axis = 1 : i64} : (tensor<2x3x6xf64>, tensor<2x5x4xf64>) -> tensor<3x3x5xf64>
  func.return
}

// -----

func.func @conv_kernel_grad_stride(%x: tensor<2x3x6xf64>, %g: tensor<2x5x4xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_kernel_grad: stride and dilation must be ≥ 1
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 0>, dilation = array<i64: 1>, channel_axis = 1 : i64} : (tensor<2x3x6xf64>, tensor<2x5x4xf64>) -> tensor<3x3x5xf64>
  func.return
}

// -----

func.func @conv_kernel_grad_lead(%x: tensor<2x3x6xf64>, %g: tensor<3x5x4xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_kernel_grad: input [2, 3, 6] and cotangent [3, 5, 4] must be [lead…, channels, spatial…] with 1 spatial axes after axis 1
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 1>, dilation = array<i64: 1>, channel_axis = 1 : i64} : (tensor<2x3x6xf64>, tensor<3x5x4xf64>) -> tensor<3x3x5xf64>
  func.return
}

// -----

func.func @conv_kernel_grad_element(%x: tensor<2x3x6xf32>, %g: tensor<2x5x4xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir_ad.conv_kernel_grad: input must have element type f64
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 1>, dilation = array<i64: 1>, channel_axis = 1 : i64} : (tensor<2x3x6xf32>, tensor<2x5x4xf64>) -> tensor<3x3x5xf64>
  func.return
}
