// hard_masked_softmax: max over allowed entries keeps the first maximum's tangent; blocked
// numerators are the literal (0, 0); an all-blocked row is the literal zero; y = num / S by the
// quotient rule.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.hard_masked_softmax [[X]] {mask = dense<{{\[\[}}true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V1]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V5]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]], [[V8:%[a-zA-Z0-9_.$-]+]], [[V9:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V0]]) init([[V2]], [[V4]], [[V6]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64>, tensor<2xf64> {
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
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V29]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V31]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]], [[V34:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V0]], [[V7]], [[V9]]) init([[V30]], [[V32]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64, [[V38:%[a-zA-Z0-9_.$-]+]]: f64, [[V39:%[a-zA-Z0-9_.$-]+]]: f64, [[V40:%[a-zA-Z0-9_.$-]+]]: f64, [[V41:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V35]], [[V38]] : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V36]], [[V39]] : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = math.exp [[V42]] : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V44]], [[V43]] : f64
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V37]], [[V47]] : f64
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = arith.select [[V48]], [[V44]], [[V46]] : f64
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V37]], [[V50]] : f64
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.select [[V51]], [[V45]], [[V46]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V49]], [[V52]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V53]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V55]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]], [[V58:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V33]], [[V34]]) init([[V54]], [[V56]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V59:%[a-zA-Z0-9_.$-]+]]: f64, [[V60:%[a-zA-Z0-9_.$-]+]]: f64, [[V61:%[a-zA-Z0-9_.$-]+]]: f64, [[V62:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V61]], [[V59]] : f64
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V62]], [[V60]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V63]], [[V64]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V65]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V33]], [[V34]], [[V57]], [[V58]], [[V8]]) init([[V66]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64, [[V71:%[a-zA-Z0-9_.$-]+]]: f64, [[V72:%[a-zA-Z0-9_.$-]+]]: f64, [[V73:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V70]], [[V70]] : f64
// CHECK-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V69]], [[V70]] : f64
// CHECK-NEXT:    [[V76:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V71]] : f64
// CHECK-NEXT:    [[V77:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V75]], [[V76]] : f64
// CHECK-NEXT:    [[V78:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V77]], [[V74]] : f64
// CHECK-NEXT:    [[V79:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V80:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V72]], [[V79]] : f64
// CHECK-NEXT:    [[V81:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.select [[V80]], [[V78]], [[V81]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V82]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V67]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = tlir.hard_masked_softmax %x {mask = dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
