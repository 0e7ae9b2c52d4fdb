// avg_pool: (s, ds) folded over the window (padding counts as (0, 0)), over (kernel volume, 0) by
// the quotient rule.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.avg_pool [[X]] {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DX]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V2]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V4]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V6]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]], [[V9:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V1]]) init([[V5]], [[V7]]) {bounds = array<i64: 2, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>, affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x6xf64>, tensor<2x6xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V12]], [[V10]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V13]], [[V11]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V14]], [[V15]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V8]], [[V9]]) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V19]], [[V19]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V19]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V17]], [[V20]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V22]], [[V23]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V24]], [[V21]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V25]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V16]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x4xf64>) -> tensor<2x3xf64> {
  %y = tlir.avg_pool %x {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
