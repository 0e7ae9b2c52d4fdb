// layernorm: statistics recomputed as the forward; xhat = c/σ; gγ = g·γ; dx = (1/σ)·((gγ - Σgγ/N)
// - xhat·(Σ(gγ·xhat)/N)); dγ = fold over rows of g·xhat; dβ = fold over rows of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V3]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V5]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V6]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[V2]]) init([[V7]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V10]], [[V12]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V9]], [[V13]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V14]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V15]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V8]]) init([[V16]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V19]], [[V18]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V20]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V21]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V8]], [[V17]]) init([[V22]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V24:%[a-zA-Z0-9_.$-]+]]: f64, [[V25:%[a-zA-Z0-9_.$-]+]]: f64, [[V26:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V25]], [[V27]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V24]], [[V28]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V29]], [[V29]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V26]], [[V30]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V31]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V32]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V8]], [[V23]]) init([[V33]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V36]], [[V38]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V39]], [[V40]] : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.select [[V41]], [[V42]], [[V39]] : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V43]], [[V44]] : f64
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V45]], [[V46]] : f64
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = arith.select [[V47]], [[V48]], [[V45]] : f64
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V49]] : f64
// CHECK-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V35]], [[V50]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V51]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V52]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[GAMMA]]) init([[V53]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V55:%[a-zA-Z0-9_.$-]+]]: f64, [[V56:%[a-zA-Z0-9_.$-]+]]: f64, [[V57:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V55]], [[V56]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V58]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V59]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V54]]) init([[V60]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V62:%[a-zA-Z0-9_.$-]+]]: f64, [[V63:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V63]], [[V62]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V64]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V65]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V54]], [[V34]]) init([[V66]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V71:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V69]] : f64
// CHECK-NEXT:    [[V72:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V70]], [[V71]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V72]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V73]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V54]], [[V34]], [[V61]], [[V67]], [[V23]]) init([[V74]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V76:%[a-zA-Z0-9_.$-]+]]: f64, [[V77:%[a-zA-Z0-9_.$-]+]]: f64, [[V78:%[a-zA-Z0-9_.$-]+]]: f64, [[V79:%[a-zA-Z0-9_.$-]+]]: f64, [[V80:%[a-zA-Z0-9_.$-]+]]: f64, [[V81:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V83:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V84:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V80]], [[V83]] : f64
// CHECK-NEXT:    [[V85:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V84]], [[V85]] : f64
// CHECK-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.select [[V86]], [[V87]], [[V84]] : f64
// CHECK-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V88]], [[V89]] : f64
// CHECK-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V90]], [[V91]] : f64
// CHECK-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.select [[V92]], [[V93]], [[V90]] : f64
// CHECK-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V94]] : f64
// CHECK-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V82]], [[V95]] : f64
// CHECK-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V98:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V78]], [[V97]] : f64
// CHECK-NEXT:    [[V99:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V76]], [[V98]] : f64
// CHECK-NEXT:    [[V100:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V79]], [[V100]] : f64
// CHECK-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V77]], [[V101]] : f64
// CHECK-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V99]], [[V102]] : f64
// CHECK-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V96]], [[V103]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V104]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V105:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V106:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V105]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[V34]]) init([[V106]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V108:%[a-zA-Z0-9_.$-]+]]: f64, [[V109:%[a-zA-Z0-9_.$-]+]]: f64, [[V110:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V111:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V108]], [[V109]] : f64
// CHECK-NEXT:    [[V112:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V110]], [[V111]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V112]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V113:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V114:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V113]] : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V115:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V114]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V116:%[a-zA-Z0-9_.$-]+]]: f64, [[V117:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V118:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V117]], [[V116]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V118]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V75]], [[V107]], [[V115]] : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// INPUTS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V3]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V5]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V6]] : (tensor<f64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[V2]]) init([[V7]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V10]], [[V12]] : f64
// INPUTS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V9]], [[V13]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V14]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V15]] : (tensor<f64>) -> tensor<2xf64>
// INPUTS-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V8]]) init([[V16]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V19]], [[V18]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V20]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V21]] : (tensor<f64>) -> tensor<2xf64>
// INPUTS-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V8]], [[V17]]) init([[V22]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V24:%[a-zA-Z0-9_.$-]+]]: f64, [[V25:%[a-zA-Z0-9_.$-]+]]: f64, [[V26:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V25]], [[V27]] : f64
// INPUTS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V24]], [[V28]] : f64
// INPUTS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V29]], [[V29]] : f64
// INPUTS-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V26]], [[V30]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V31]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V32]] : (tensor<f64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V8]], [[V23]]) init([[V33]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V36]], [[V38]] : f64
// INPUTS-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V39]], [[V40]] : f64
// INPUTS-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.select [[V41]], [[V42]], [[V39]] : f64
// INPUTS-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// INPUTS-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V43]], [[V44]] : f64
// INPUTS-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V45]], [[V46]] : f64
// INPUTS-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = arith.select [[V47]], [[V48]], [[V45]] : f64
// INPUTS-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V49]] : f64
// INPUTS-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V35]], [[V50]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V51]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V52]] : (tensor<f64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[GAMMA]]) init([[V53]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V55:%[a-zA-Z0-9_.$-]+]]: f64, [[V56:%[a-zA-Z0-9_.$-]+]]: f64, [[V57:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V55]], [[V56]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V58]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V59]] : (tensor<f64>) -> tensor<2xf64>
// INPUTS-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V54]]) init([[V60]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V62:%[a-zA-Z0-9_.$-]+]]: f64, [[V63:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V63]], [[V62]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V64]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V65]] : (tensor<f64>) -> tensor<2xf64>
// INPUTS-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V54]], [[V34]]) init([[V66]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V71:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V69]] : f64
// INPUTS-NEXT:    [[V72:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V70]], [[V71]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V72]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V73]] : (tensor<f64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V54]], [[V34]], [[V61]], [[V67]], [[V23]]) init([[V74]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V76:%[a-zA-Z0-9_.$-]+]]: f64, [[V77:%[a-zA-Z0-9_.$-]+]]: f64, [[V78:%[a-zA-Z0-9_.$-]+]]: f64, [[V79:%[a-zA-Z0-9_.$-]+]]: f64, [[V80:%[a-zA-Z0-9_.$-]+]]: f64, [[V81:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// INPUTS-NEXT:    [[V83:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V84:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V80]], [[V83]] : f64
// INPUTS-NEXT:    [[V85:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V84]], [[V85]] : f64
// INPUTS-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.select [[V86]], [[V87]], [[V84]] : f64
// INPUTS-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// INPUTS-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V88]], [[V89]] : f64
// INPUTS-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V90]], [[V91]] : f64
// INPUTS-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.select [[V92]], [[V93]], [[V90]] : f64
// INPUTS-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V94]] : f64
// INPUTS-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V82]], [[V95]] : f64
// INPUTS-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V98:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V78]], [[V97]] : f64
// INPUTS-NEXT:    [[V99:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V76]], [[V98]] : f64
// INPUTS-NEXT:    [[V100:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V79]], [[V100]] : f64
// INPUTS-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V77]], [[V101]] : f64
// INPUTS-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V99]], [[V102]] : f64
// INPUTS-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V96]], [[V103]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V104]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V105:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V106:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V105]] : (tensor<f64>) -> tensor<3xf64>
// INPUTS-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[V34]]) init([[V106]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// INPUTS-NEXT:    ^bb0([[V108:%[a-zA-Z0-9_.$-]+]]: f64, [[V109:%[a-zA-Z0-9_.$-]+]]: f64, [[V110:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V111:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V108]], [[V109]] : f64
// INPUTS-NEXT:    [[V112:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V110]], [[V111]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V112]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V113:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V114:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V113]] : (tensor<f64>) -> tensor<3xf64>
// INPUTS-NEXT:    [[V115:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V114]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// INPUTS-NEXT:    ^bb0([[V116:%[a-zA-Z0-9_.$-]+]]: f64, [[V117:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V118:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V117]], [[V116]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V118]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    func.return [[Y]], [[V75]], [[V107]], [[V115]] : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %gamma: tensor<3xf64>, %beta: tensor<3xf64>) -> tensor<2x3xf64> {
  %y = tlir.layernorm %x affine(%gamma, %beta) {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
