// The tlir_ad ops print and parse back (round trip, f32 and f64).
// RUN: tlir-opt %s | tlir-opt | filecheck %s

// CHECK-LABEL: func.func @map
// CHECK:       %[[Q:.*]], %[[DQ:.*]] = tlir_ad.map(%a, %s) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
// CHECK-NEXT:  ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT:    %[[D:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT:    tlir_ad.yield %[[D]], %[[X]] : f32, f32
// CHECK-NEXT:  }
func.func @map(%a: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %q, %dq = tlir_ad.map(%a, %s) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.divf %x, %y : f32
    tlir_ad.yield %d, %x : f32, f32
  }
  func.return %q : tensor<3xf32>
}

// CHECK-LABEL: func.func @fold
// CHECK:       tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:  ^bb0(%[[X:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:    tlir_ad.yield %[[S]] : f64
func.func @fold(%a: tensor<2x3xf64>) -> tensor<2xf64> {
  %z = tlir.const {value = dense<0.0> : tensor<2xf64>} : tensor<2xf64>
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    tlir_ad.yield %s : f64
  }
  func.return %r : tensor<2xf64>
}

// CHECK-LABEL: func.func @pad
// CHECK:       tlir_ad.pad %a {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf64>) -> tensor<8xf64>
func.func @pad(%a: tensor<3xf64>) -> tensor<8xf64> {
  %p = tlir_ad.pad %a {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf64>) -> tensor<8xf64>
  func.return %p : tensor<8xf64>
}

// CHECK-LABEL: func.func @conv_input_grad
// CHECK:       %{{.*}} = tlir_ad.conv_input_grad %g, %wt {stride = array<i64: 1, 2>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, groups = 2 : i64, channel_axis = 1 : i64} : (tensor<1x6x3x2xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x4xf32>
func.func @conv_input_grad(%g: tensor<1x6x3x2xf32>, %wt: tensor<4x3x2x2xf32>) -> tensor<1x4x5x4xf32> {
  %dx = tlir_ad.conv_input_grad %g, %wt {stride = array<i64: 1, 2>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, groups = 2 : i64, channel_axis = 1 : i64} : (tensor<1x6x3x2xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x4xf32>
  func.return %dx : tensor<1x4x5x4xf32>
}

// CHECK-LABEL: func.func @conv_kernel_grad
// CHECK:       %{{.*}} = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, channel_axis = 1 : i64} : (tensor<2x3x7x6xf32>, tensor<2x4x3x2xf32>) -> tensor<3x2x3x4xf32>
func.func @conv_kernel_grad(%x: tensor<2x3x7x6xf32>, %g: tensor<2x4x3x2xf32>) -> tensor<3x2x3x4xf32> {
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, channel_axis = 1 : i64} : (tensor<2x3x7x6xf32>, tensor<2x4x3x2xf32>) -> tensor<3x2x3x4xf32>
  func.return %dkt : tensor<3x2x3x4xf32>
}
