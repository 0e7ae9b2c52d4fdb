// broadcast_to: reduceFromBroadcastTo: each broadcast axis, outermost first, folded from +0 on its
// own, then reshaped to the source.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<3x1xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<3x1xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[X]] : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3x4xf64>} : tensor<3x4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V0]]) {bounds = array<i64: 2, 3, 4>, maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterators = ["reduction", "parallel", "parallel"]} : (tensor<2x3x4xf64>), (tensor<3x4xf64>) -> tensor<3x4xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V3]], [[V2]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V4]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V1]]) init([[V5]]) {bounds = array<i64: 3, 4>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<3x4xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V7]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V9]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V6]] : (tensor<3xf64>) -> tensor<3x1xf64>
// CHECK-NEXT:    func.return [[Y]], [[V10]] : tensor<2x3x4xf64>, tensor<3x1xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<3x1xf64>) -> tensor<2x3x4xf64> {
  %y = tlir.broadcast_to %x : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
  func.return %y : tensor<2x3x4xf64>
}
