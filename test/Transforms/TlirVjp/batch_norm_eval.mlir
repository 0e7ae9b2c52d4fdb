// batch_norm_eval: docs/autodiff.md#d4-batch-norm-vjp: dx = (g·gamma)/std; dgamma = fold of g·((x - mean)/std), dbeta = fold of g
// over the non-channel positions; mean and var get nothing.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[MEAN:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[VAR:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.batch_norm_eval [[X]], [[GAMMA]], [[BETA]], [[MEAN]], [[VAR]] {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[GAMMA]], [[VAR]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V5]], [[V8]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V10]], [[V5]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V12]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V13]], [[V14]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.select [[V15]], [[V16]], [[V13]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V17]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V7]], [[V18]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V19]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V20]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[X]], [[MEAN]], [[VAR]]) init([[V21]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V23:%[a-zA-Z0-9_.$-]+]]: f64, [[V24:%[a-zA-Z0-9_.$-]+]]: f64, [[V25:%[a-zA-Z0-9_.$-]+]]: f64, [[V26:%[a-zA-Z0-9_.$-]+]]: f64, [[V27:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V24]], [[V25]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V26]], [[V29]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.select [[V30]], [[V31]], [[V26]] : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V32]], [[V33]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V34]], [[V35]] : f64
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.select [[V36]], [[V37]], [[V34]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V38]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V28]], [[V39]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V23]], [[V40]] : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V27]], [[V41]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V42]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V43]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V44]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V46:%[a-zA-Z0-9_.$-]+]]: f64, [[V47:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V47]], [[V46]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V48]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    func.return [[Y]], [[V2]], [[V22]], [[V45]], [[V49]], [[V50]] : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[MEAN:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[VAR:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.batch_norm_eval [[X]], [[GAMMA]], [[BETA]], [[MEAN]], [[VAR]] {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[GAMMA]], [[VAR]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// INPUTS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V5]], [[V8]] : f64
// INPUTS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V10]], [[V5]] : f64
// INPUTS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// INPUTS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V12]] : f64
// INPUTS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V13]], [[V14]] : f64
// INPUTS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.select [[V15]], [[V16]], [[V13]] : f64
// INPUTS-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V17]] : f64
// INPUTS-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V7]], [[V18]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V19]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V20]] : (tensor<f64>) -> tensor<3xf64>
// INPUTS-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[X]], [[MEAN]], [[VAR]]) init([[V21]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// INPUTS-NEXT:    ^bb0([[V23:%[a-zA-Z0-9_.$-]+]]: f64, [[V24:%[a-zA-Z0-9_.$-]+]]: f64, [[V25:%[a-zA-Z0-9_.$-]+]]: f64, [[V26:%[a-zA-Z0-9_.$-]+]]: f64, [[V27:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V24]], [[V25]] : f64
// INPUTS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V26]], [[V29]] : f64
// INPUTS-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.select [[V30]], [[V31]], [[V26]] : f64
// INPUTS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// INPUTS-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V32]], [[V33]] : f64
// INPUTS-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V34]], [[V35]] : f64
// INPUTS-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.select [[V36]], [[V37]], [[V34]] : f64
// INPUTS-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V38]] : f64
// INPUTS-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V28]], [[V39]] : f64
// INPUTS-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V23]], [[V40]] : f64
// INPUTS-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V27]], [[V41]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V42]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V43]] : (tensor<f64>) -> tensor<3xf64>
// INPUTS-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V44]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// INPUTS-NEXT:    ^bb0([[V46:%[a-zA-Z0-9_.$-]+]]: f64, [[V47:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V47]], [[V46]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V48]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// INPUTS-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// INPUTS-NEXT:    func.return [[Y]], [[V2]], [[V22]], [[V45]], [[V49]], [[V50]] : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %gamma: tensor<3xf64>, %beta: tensor<3xf64>, %mean: tensor<3xf64>, %var: tensor<3xf64>) -> tensor<2x3xf64> {
  %y = tlir.batch_norm_eval %x, %gamma, %beta, %mean, %var {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
