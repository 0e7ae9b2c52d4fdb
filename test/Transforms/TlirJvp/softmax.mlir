// softmax: m folds the Dual max over every element from element 0 (its max with itself is a tie),
// ties ½/½; e = exp(x - m) on duals; S folds e from (0, 0); y = e / S by the quotient rule.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.softmax [[X]] axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]], [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V0]], [[V1]]) {bounds = array<i64: 2>, maps = [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0, 0)>], iterators = ["parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V4]], [[V5]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]], [[V9:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V2]], [[V3]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V12]], [[V10]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V10]], [[V12]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V13]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V11]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V17]], [[V18]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.select [[V15]], [[V11]], [[V19]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.select [[V14]], [[V13]], [[V20]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V12]], [[V10]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.select [[V22]], [[V10]], [[V12]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V23]], [[V21]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]], [[V27:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V8]], [[V9]]) init([[V24]], [[V25]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V28:%[a-zA-Z0-9_.$-]+]]: f64, [[V29:%[a-zA-Z0-9_.$-]+]]: f64, [[V30:%[a-zA-Z0-9_.$-]+]]: f64, [[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64, [[V33:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V28]], [[V30]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V29]], [[V31]] : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = math.exp [[V34]] : f64
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V36]], [[V35]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V36]], [[V37]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]], [[V41:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V26]], [[V27]]) init([[V38]], [[V39]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V42:%[a-zA-Z0-9_.$-]+]]: f64, [[V43:%[a-zA-Z0-9_.$-]+]]: f64, [[V44:%[a-zA-Z0-9_.$-]+]]: f64, [[V45:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V44]], [[V42]] : f64
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V45]], [[V43]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V46]], [[V47]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V26]], [[V27]], [[V40]], [[V41]]) init([[V48]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V50:%[a-zA-Z0-9_.$-]+]]: f64, [[V51:%[a-zA-Z0-9_.$-]+]]: f64, [[V52:%[a-zA-Z0-9_.$-]+]]: f64, [[V53:%[a-zA-Z0-9_.$-]+]]: f64, [[V54:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V52]], [[V52]] : f64
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V51]], [[V52]] : f64
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V50]], [[V53]] : f64
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V56]], [[V57]] : f64
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V58]], [[V55]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V59]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V49]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = tlir.softmax %x axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
