// broadcast_to: reduceFromBroadcastTo: each broadcast axis, outermost first, folded from +0 on its
// own, then reshaped to the source.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<3x1xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<3x1xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[X]] : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<3x4xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V1]]) {bounds = array<i64: 2, 3, 4>, maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterators = ["reduction", "parallel", "parallel"]} : (tensor<2x3x4xf64>), (tensor<3x4xf64>) -> tensor<3x4xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V3]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V5]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V6]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V2]]) init([[V7]]) {bounds = array<i64: 3, 4>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<3x4xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V10]], [[V9]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V11]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V8]] : (tensor<3xf64>) -> tensor<3x1xf64>
// CHECK-NEXT:    func.return [[Y]], [[V12]] : tensor<2x3x4xf64>, tensor<3x1xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<3x1xf64>) -> tensor<2x3x4xf64> {
  %y = tlir.broadcast_to %x : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
  func.return %y : tensor<2x3x4xf64>
}
