// batch_norm_eval: ((x - mean) / sqrt(max(max(var, 0) + eps, 0)))·gamma + beta on duals; the max
// ties split ½/½, the quotient rule divides.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[MEAN:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[VAR:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DGAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DBETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DMEAN:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DVAR:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.batch_norm_eval [[X]], [[GAMMA]], [[BETA]], [[MEAN]], [[VAR]] {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[GAMMA]], [[DGAMMA]], [[BETA]], [[DBETA]], [[MEAN]], [[DMEAN]], [[VAR]], [[DVAR]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V3]], [[V9]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V4]], [[V10]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V11]], [[V16]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V16]], [[V11]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V12]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V17]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V21]], [[V22]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.select [[V19]], [[V17]], [[V23]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.select [[V18]], [[V12]], [[V24]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V11]], [[V16]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.select [[V26]], [[V16]], [[V11]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V27]], [[V28]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V25]], [[V30]] : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V29]], [[V32]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V32]], [[V29]] : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V36]], [[V31]] : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V36]], [[V33]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V37]], [[V38]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.select [[V35]], [[V33]], [[V39]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.select [[V34]], [[V31]], [[V40]] : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V29]], [[V32]] : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.select [[V42]], [[V32]], [[V29]] : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V43]] : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V45]], [[V44]] : f64
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V41]], [[V46]] : f64
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V43]], [[V48]] : f64
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.select [[V49]], [[V47]], [[V50]] : f64
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V14]], [[V44]] : f64
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V44]], [[V44]] : f64
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V44]] : f64
// CHECK-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V14]], [[V51]] : f64
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V54]], [[V55]] : f64
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V56]], [[V53]] : f64
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V57]], [[V5]] : f64
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V52]], [[V6]] : f64
// CHECK-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V58]], [[V59]] : f64
// CHECK-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V60]], [[V8]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V61]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V2]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[MEAN:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[VAR:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DGAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DBETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DMEAN:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DVAR:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.batch_norm_eval [[X]], [[GAMMA]], [[BETA]], [[MEAN]], [[VAR]] {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[GAMMA]], [[DGAMMA]], [[BETA]], [[DBETA]], [[MEAN]], [[DMEAN]], [[VAR]], [[DVAR]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V3]], [[V9]] : f64
// PARAMS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V4]], [[V10]] : f64
// PARAMS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V11]], [[V16]] : f64
// PARAMS-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V16]], [[V11]] : f64
// PARAMS-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// PARAMS-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V12]] : f64
// PARAMS-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V17]] : f64
// PARAMS-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V21]], [[V22]] : f64
// PARAMS-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.select [[V19]], [[V17]], [[V23]] : f64
// PARAMS-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.select [[V18]], [[V12]], [[V24]] : f64
// PARAMS-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V11]], [[V16]] : f64
// PARAMS-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.select [[V26]], [[V16]], [[V11]] : f64
// PARAMS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// PARAMS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V27]], [[V28]] : f64
// PARAMS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V25]], [[V30]] : f64
// PARAMS-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V29]], [[V32]] : f64
// PARAMS-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V32]], [[V29]] : f64
// PARAMS-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// PARAMS-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V36]], [[V31]] : f64
// PARAMS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V36]], [[V33]] : f64
// PARAMS-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V37]], [[V38]] : f64
// PARAMS-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.select [[V35]], [[V33]], [[V39]] : f64
// PARAMS-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.select [[V34]], [[V31]], [[V40]] : f64
// PARAMS-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V29]], [[V32]] : f64
// PARAMS-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.select [[V42]], [[V32]], [[V29]] : f64
// PARAMS-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V43]] : f64
// PARAMS-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// PARAMS-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V45]], [[V44]] : f64
// PARAMS-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V41]], [[V46]] : f64
// PARAMS-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V43]], [[V48]] : f64
// PARAMS-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.select [[V49]], [[V47]], [[V50]] : f64
// PARAMS-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V14]], [[V44]] : f64
// PARAMS-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V44]], [[V44]] : f64
// PARAMS-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V44]] : f64
// PARAMS-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V14]], [[V51]] : f64
// PARAMS-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V54]], [[V55]] : f64
// PARAMS-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V56]], [[V53]] : f64
// PARAMS-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V57]], [[V5]] : f64
// PARAMS-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V52]], [[V6]] : f64
// PARAMS-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V58]], [[V59]] : f64
// PARAMS-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V60]], [[V8]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V61]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    func.return [[Y]], [[V2]] : tensor<2x3xf64>, tensor<2x3xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %gamma: tensor<3xf64>, %beta: tensor<3xf64>, %mean: tensor<3xf64>, %var: tensor<3xf64>) -> tensor<2x3xf64> {
  %y = tlir.batch_norm_eval %x, %gamma, %beta, %mean, %var {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
