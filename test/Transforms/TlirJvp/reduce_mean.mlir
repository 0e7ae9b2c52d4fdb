// reduce_mean: (s, ds) folded from (0, 0), then over (n, 0) by the quotient rule: ((ds·n) - (s·0))
// / (n·n), not ds/n.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.reduce_mean [[X]] axis = 0 : (tensor<2x3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V1]], [[V3]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>, tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V6]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V7]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V10]], [[V11]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V4]], [[V5]]) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V15]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V13]], [[V16]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V18]], [[V19]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V20]], [[V17]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V21]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V12]] : tensor<3xf64>, tensor<3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<3xf64> {
  %y = tlir.reduce_mean %x axis = 0 : (tensor<2x3xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
