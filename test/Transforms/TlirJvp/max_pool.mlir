// max_pool: the tangent of the first maximal real cell of the window (row-major, strict >; padding
// never wins).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.max_pool [[X]] {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DX]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V2]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]], [[V8:%[a-zA-Z0-9_.$-]+]], [[V9:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V1]], [[V3]]) init([[V4]], [[V5]], [[V6]]) {bounds = array<i64: 2, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>, affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>, affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x6xf64>, tensor<2x6xf64>, tensor<2x6xf64>), (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V14]], [[V16]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V12]], [[V18]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V10]], [[V13]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V17]], [[V20]] : i1
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V19]], [[V21]] : i1
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.select [[V22]], [[V10]], [[V13]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V12]], [[V24]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.select [[V25]], [[V26]], [[V14]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.select [[V22]], [[V11]], [[V15]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V23]], [[V27]], [[V28]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V9]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x4xf64>) -> tensor<2x3xf64> {
  %y = tlir.max_pool %x {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
