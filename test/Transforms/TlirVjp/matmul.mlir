// matmul: dA = fold over j of g·B (g @ Bᵀ), dB = fold over i of A·g (Aᵀ @ g), from +0 on the
// common batch, then reduceFromBroadcastTo each operand.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x1x2x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<3x3x4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x2x4xf64>) -> (tensor<2x3x2x4xf64>, tensor<2x1x2x3xf64>, tensor<3x3x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[A]], [[B]] : (tensor<2x1x2x3xf64>, tensor<3x3x4xf64>) -> tensor<2x3x2x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3x2x3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[B]]) init([[V1]]) {bounds = array<i64: 2, 3, 2, 3, 4>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>], iterators = ["parallel", "parallel", "parallel", "parallel", "reduction"]} : (tensor<2x3x2x4xf64>, tensor<3x3x4xf64>), (tensor<2x3x2x3xf64>) -> tensor<2x3x2x3xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[V6]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V7]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V8]] : (tensor<f64>) -> tensor<2x2x3xf64>
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V2]]) init([[V9]]) {bounds = array<i64: 2, 3, 2, 3>, maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterators = ["parallel", "reduction", "parallel", "parallel"]} : (tensor<2x3x2x3xf64>), (tensor<2x2x3xf64>) -> tensor<2x2x3xf64> {
// CHECK-NEXT:    ^bb0([[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V12]], [[V11]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V13]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V10]] : (tensor<2x2x3xf64>) -> tensor<2x1x2x3xf64>
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V15]] : (tensor<f64>) -> tensor<2x3x3x4xf64>
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[A]], [[DY0]]) init([[V16]]) {bounds = array<i64: 2, 3, 3, 4, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>], iterators = ["parallel", "parallel", "parallel", "parallel", "reduction"]} : (tensor<2x1x2x3xf64>, tensor<2x3x2x4xf64>), (tensor<2x3x3x4xf64>) -> tensor<2x3x3x4xf64> {
// CHECK-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V19]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V20]], [[V21]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V22]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V23]] : (tensor<f64>) -> tensor<3x3x4xf64>
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V17]]) init([[V24]]) {bounds = array<i64: 2, 3, 3, 4>, maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterators = ["reduction", "parallel", "parallel", "parallel"]} : (tensor<2x3x3x4xf64>), (tensor<3x3x4xf64>) -> tensor<3x3x4xf64> {
// CHECK-NEXT:    ^bb0([[V26:%[a-zA-Z0-9_.$-]+]]: f64, [[V27:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V27]], [[V26]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V28]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V14]], [[V25]] : tensor<2x3x2x4xf64>, tensor<2x1x2x3xf64>, tensor<3x3x4xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x1x2x3xf64>, %b: tensor<3x3x4xf64>) -> tensor<2x3x2x4xf64> {
  %y = tlir.matmul %a, %b : (tensor<2x1x2x3xf64>, tensor<3x3x4xf64>) -> tensor<2x3x2x4xf64>
  func.return %y : tensor<2x3x2x4xf64>
}
