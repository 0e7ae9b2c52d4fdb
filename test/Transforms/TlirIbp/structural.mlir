// Index moves and max_pool: the forward op on each end; matmul of two boxes: the
// interval product of the entries, folded over k with directed sums.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[A_LO:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[B_LO:%[a-zA-Z0-9_.$-]+]]: tensor<3x2xf64>, [[A_HI:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[B_HI:%[a-zA-Z0-9_.$-]+]]: tensor<3x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<f64>) {
// CHECK-NEXT:    [[T:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[B_LO]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[T_1:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[B_HI]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[P:%[a-zA-Z0-9_.$-]+]] = tlir.max_pool [[T]] {kernel = array<i64: 1>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[P_1:%[a-zA-Z0-9_.$-]+]] = tlir.max_pool [[T_1]] {kernel = array<i64: 1>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[A_LO]], [[A_HI]], [[B_LO]], [[B_HI]]) init([[V1]], [[V3]]) {bounds = array<i64: 2, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterators = ["parallel", "reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x2xf64>, tensor<3x2xf64>), (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>, tensor<2x2xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V6]], [[V8]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V6]], [[V9]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V8]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V9]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V12]], [[V13]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.select [[V16]], [[V13]], [[V12]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.select [[V18]], [[V15]], [[V14]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V17]], [[V19]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.select [[V20]], [[V19]], [[V17]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V12]], [[V13]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.select [[V23]], [[V12]], [[V13]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V25]], [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V24]], [[V26]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.select [[V27]], [[V24]], [[V26]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V28]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V10]], [[V22]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V30]] : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V29]] : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V32]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V31]], [[V33]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7ff0000000000000> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    func.return [[V4]], [[V5]], [[V34]] : tensor<2x2xf64>, tensor<2x2xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>) -> tensor<2x2xf64> {
  %t = tlir.transpose %b {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x2xf64>) -> tensor<2x3xf64>
  %p = tlir.max_pool %t {kernel = array<i64: 1>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %m = tlir.matmul %a, %b : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  func.return %m : tensor<2x2xf64>
}
