// hard_masked_softmax: docs/autodiff.md#d3-masked-softmax-vjp: s = fold of g·w over the row; dx = w·(g - s) where allowed, +0 where
// blocked (w the forward weights).
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.hard_masked_softmax [[X]] {mask = dense<{{\[\[}}true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V1]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[Y]]) init([[V2]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[V5]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V7]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V9]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[Y]], [[V0]], [[V3]]) init([[V10]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V14]], [[V17]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V12]], [[V15]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V13]], [[V19]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.select [[V18]], [[V20]], [[V21]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V22]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V11]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = tlir.hard_masked_softmax %x {mask = dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
