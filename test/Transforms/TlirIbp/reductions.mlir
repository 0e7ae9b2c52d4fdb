// reduce_mean: the directed sums along the axis, then the quotient bounds by the
// count interval of 3 (1 added three times, down and up: constants), with finite
// checks on the sums and the quotients into a failure flag.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<f64>) {
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X_LO]], [[X_HI]]) init([[V1]], [[V3]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V6]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V10]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V7]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V12]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V11]], [[V13]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]], [[V15:%[a-zA-Z0-9_.$-]+]], [[V16:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V4]], [[V5]]) : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
// CHECK-NEXT:    ^bb0([[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.9999999999999996 : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.0000000000000009 : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V19]], [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V21]], [[V20]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V22]], [[V23]] : i1
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V17]], [[V19]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V17]], [[V20]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V18]], [[V19]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V18]], [[V20]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V25]], [[V26]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.select [[V29]], [[V26]], [[V25]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V27]], [[V28]] : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.select [[V31]], [[V28]], [[V27]] : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V30]], [[V32]] : f64
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.select [[V33]], [[V32]], [[V30]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V34]] : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V25]], [[V26]] : f64
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.select [[V36]], [[V25]], [[V26]] : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V27]], [[V28]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.select [[V38]], [[V27]], [[V28]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V37]], [[V39]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.select [[V40]], [[V37]], [[V39]] : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V41]] : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uge, [[V18]], [[V17]] : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V17]], [[V17]] : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V44]], [[V45]] : f64
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V18]], [[V18]] : f64
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V47]], [[V48]] : f64
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V46]], [[V49]] : i1
// CHECK-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V43]], [[V50]] : i1
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uge, [[V42]], [[V35]] : f64
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V35]], [[V35]] : f64
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V53]], [[V54]] : f64
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V42]], [[V42]] : f64
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V56]], [[V57]] : f64
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V55]], [[V58]] : i1
// CHECK-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V52]], [[V59]] : i1
// CHECK-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V51]], [[V24]] : i1
// CHECK-NEXT:    [[V62:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V61]], [[V60]] : i1
// CHECK-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = arith.select [[V62]], [[V63]], [[V64]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V35]], [[V42]], [[V65]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[V16]] : (tensor<2xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V66]]) : (tensor<f64>) -> tensor<f64> {
// CHECK-NEXT:    ^bb0([[V68:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V69:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    [[V70:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V71:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V68]], [[V70]] : f64
// CHECK-NEXT:    [[V72:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = arith.select [[V71]], [[V72]], [[V69]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V73]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[V14]], [[V15]], [[V67]] : tensor<2xf64>, tensor<2xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %m = tlir.reduce_mean %x axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
  func.return %m : tensor<2xf64>
}
