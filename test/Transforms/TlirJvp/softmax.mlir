// softmax: m folds the Dual max over every element from element 0 (its max with itself is a tie),
// ties ½/½; e = exp(x - m) on duals; S folds e from (0, 0); y = e / S by the quotient rule.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.softmax [[X]] axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V1]], [[V3]]) {bounds = array<i64: 2>, maps = [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0, 0)>], iterators = ["parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V6]], [[V7]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]], [[V11:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V4]], [[V5]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V14]], [[V12]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V12]], [[V14]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V15]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V13]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V19]], [[V20]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.select [[V17]], [[V13]], [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.select [[V16]], [[V15]], [[V22]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V14]], [[V12]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.select [[V24]], [[V12]], [[V14]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V25]], [[V23]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V26]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V28]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]], [[V31:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V10]], [[V11]]) init([[V27]], [[V29]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V32:%[a-zA-Z0-9_.$-]+]]: f64, [[V33:%[a-zA-Z0-9_.$-]+]]: f64, [[V34:%[a-zA-Z0-9_.$-]+]]: f64, [[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V32]], [[V34]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V33]], [[V35]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = math.exp [[V38]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V40]], [[V39]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V40]], [[V41]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V42]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V44]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]], [[V47:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V30]], [[V31]]) init([[V43]], [[V45]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V48:%[a-zA-Z0-9_.$-]+]]: f64, [[V49:%[a-zA-Z0-9_.$-]+]]: f64, [[V50:%[a-zA-Z0-9_.$-]+]]: f64, [[V51:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V50]], [[V48]] : f64
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V51]], [[V49]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V52]], [[V53]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V54]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V30]], [[V31]], [[V46]], [[V47]]) init([[V55]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V57:%[a-zA-Z0-9_.$-]+]]: f64, [[V58:%[a-zA-Z0-9_.$-]+]]: f64, [[V59:%[a-zA-Z0-9_.$-]+]]: f64, [[V60:%[a-zA-Z0-9_.$-]+]]: f64, [[V61:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V62:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V59]], [[V59]] : f64
// CHECK-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V59]] : f64
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V57]], [[V60]] : f64
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V63]], [[V64]] : f64
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V65]], [[V62]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V66]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V56]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = tlir.softmax %x axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
