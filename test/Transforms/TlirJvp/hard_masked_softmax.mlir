// hard_masked_softmax: max over allowed entries keeps the first maximum's tangent; blocked
// numerators are the literal (0, 0); an all-blocked row is the literal zero; y = num / S by the
// quotient rule.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.hard_masked_softmax [[X]] {mask = dense<{{\[\[}}true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]], [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V0]]) init([[V1]], [[V2]], [[V3]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V11]], [[V13]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V9]], [[V15]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V7]], [[V10]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V14]], [[V17]] : i1
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V16]], [[V18]] : i1
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.select [[V19]], [[V7]], [[V10]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V9]], [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.select [[V22]], [[V23]], [[V11]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.select [[V19]], [[V8]], [[V12]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V20]], [[V24]], [[V25]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]], [[V29:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V0]], [[V4]], [[V6]]) init([[V26]], [[V27]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V30:%[a-zA-Z0-9_.$-]+]]: f64, [[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64, [[V33:%[a-zA-Z0-9_.$-]+]]: f64, [[V34:%[a-zA-Z0-9_.$-]+]]: f64, [[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V30]], [[V33]] : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V31]], [[V34]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = math.exp [[V37]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V39]], [[V38]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V32]], [[V42]] : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.select [[V43]], [[V39]], [[V41]] : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V32]], [[V45]] : f64
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.select [[V46]], [[V40]], [[V41]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V44]], [[V47]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]], [[V51:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V28]], [[V29]]) init([[V48]], [[V49]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V52:%[a-zA-Z0-9_.$-]+]]: f64, [[V53:%[a-zA-Z0-9_.$-]+]]: f64, [[V54:%[a-zA-Z0-9_.$-]+]]: f64, [[V55:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V54]], [[V52]] : f64
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V55]], [[V53]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V56]], [[V57]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V28]], [[V29]], [[V50]], [[V51]], [[V5]]) init([[V58]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V60:%[a-zA-Z0-9_.$-]+]]: f64, [[V61:%[a-zA-Z0-9_.$-]+]]: f64, [[V62:%[a-zA-Z0-9_.$-]+]]: f64, [[V63:%[a-zA-Z0-9_.$-]+]]: f64, [[V64:%[a-zA-Z0-9_.$-]+]]: f64, [[V65:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V62]], [[V62]] : f64
// CHECK-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V61]], [[V62]] : f64
// CHECK-NEXT:    [[V68:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V60]], [[V63]] : f64
// CHECK-NEXT:    [[V69:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V67]], [[V68]] : f64
// CHECK-NEXT:    [[V70:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V69]], [[V66]] : f64
// CHECK-NEXT:    [[V71:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V72:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V64]], [[V71]] : f64
// CHECK-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = arith.select [[V72]], [[V70]], [[V73]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V74]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V59]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = tlir.hard_masked_softmax %x {mask = dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
