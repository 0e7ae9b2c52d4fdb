// Index moves: the forward op on each end; max_pool (no padding): one fold of both
// ends, each the window's first cell then a later one where strictly greater; matmul
// of two boxes: the interval product of the entries, folded over k with directed sums.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[A_LO:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[B_LO:%[a-zA-Z0-9_.$-]+]]: tensor<3x2xf64>, [[A_HI:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[B_HI:%[a-zA-Z0-9_.$-]+]]: tensor<3x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<f64>) {
// CHECK-NEXT:    [[T:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[B_LO]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[T_1:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[B_HI]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]], [[V4:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[T]], [[T_1]]) init([[V1]], [[V2]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V5]], [[V6]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V9]] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V11]] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]], [[V14:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[A_LO]], [[A_HI]], [[B_LO]], [[B_HI]]) init([[V10]], [[V12]]) {bounds = array<i64: 2, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterators = ["parallel", "reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x2xf64>, tensor<3x2xf64>), (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>, tensor<2x2xf64> {
// CHECK-NEXT:    ^bb0([[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V17]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V18]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V17]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V18]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V21]], [[V22]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V25]], [[V22]], [[V21]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V23]], [[V24]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.select [[V27]], [[V24]], [[V23]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V26]], [[V28]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.select [[V29]], [[V28]], [[V26]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V30]] : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V21]], [[V22]] : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.select [[V32]], [[V21]], [[V22]] : f64
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V23]], [[V24]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.select [[V34]], [[V23]], [[V24]] : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V33]], [[V35]] : f64
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.select [[V36]], [[V33]], [[V35]] : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V37]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V19]], [[V31]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V39]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V20]], [[V38]] : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V41]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V40]], [[V42]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7ff0000000000000> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    func.return [[V13]], [[V14]], [[V43]] : tensor<2x2xf64>, tensor<2x2xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>) -> tensor<2x2xf64> {
  %t = tlir.transpose %b {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x2xf64>) -> tensor<2x3xf64>
  %p = tlir.max_pool %t {kernel = array<i64: 1>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %m = tlir.matmul %a, %b : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  func.return %m : tensor<2x2xf64>
}
