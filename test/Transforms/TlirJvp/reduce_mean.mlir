// reduce_mean: (s, ds) folded from (0, 0), then over (n, 0) by the quotient rule: ((ds·n) - (s·0))
// / (n·n), not ds/n.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.reduce_mean [[X]] axis = 0 : (tensor<2x3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]], [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V0]], [[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>, tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V4]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V5]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]], [[V9]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V2]], [[V3]]) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V13]], [[V13]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V12]], [[V13]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V11]], [[V14]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V16]], [[V17]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V18]], [[V15]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V19]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V10]] : tensor<3xf64>, tensor<3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<3xf64> {
  %y = tlir.reduce_mean %x axis = 0 : (tensor<2x3xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
