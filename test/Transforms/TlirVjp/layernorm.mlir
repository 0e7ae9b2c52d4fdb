// layernorm: statistics recomputed as the forward; xhat = c/σ; gγ = g·γ; dx = (1/σ)·((gγ - Σgγ/N)
// - xhat·(Σ(gγ·xhat)/N)); dγ = fold over rows of g·xhat; dβ = fold over rows of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]]) init([[V0]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V3]], [[V2]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V4]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[V1]]) init([[V5]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V8]], [[V10]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V7]], [[V11]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V12]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V6]]) init([[V13]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V16]], [[V15]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V17]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V6]], [[V14]]) init([[V18]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64, [[V22:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V21]], [[V23]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V20]], [[V24]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V25]], [[V25]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V22]], [[V26]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V27]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V6]], [[V19]]) init([[V28]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V30:%[a-zA-Z0-9_.$-]+]]: f64, [[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V31]], [[V33]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V34]], [[V35]] : f64
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.select [[V36]], [[V37]], [[V34]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V38]], [[V39]] : f64
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V40]], [[V41]] : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.select [[V42]], [[V43]], [[V40]] : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V44]] : f64
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V30]], [[V45]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V46]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[GAMMA]]) init([[V47]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V49:%[a-zA-Z0-9_.$-]+]]: f64, [[V50:%[a-zA-Z0-9_.$-]+]]: f64, [[V51:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V49]], [[V50]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V52]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V48]]) init([[V53]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V55:%[a-zA-Z0-9_.$-]+]]: f64, [[V56:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V56]], [[V55]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V57]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V48]], [[V29]]) init([[V58]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V60:%[a-zA-Z0-9_.$-]+]]: f64, [[V61:%[a-zA-Z0-9_.$-]+]]: f64, [[V62:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V60]], [[V61]] : f64
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V62]], [[V63]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V64]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V48]], [[V29]], [[V54]], [[V59]], [[V19]]) init([[V65]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V67:%[a-zA-Z0-9_.$-]+]]: f64, [[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64, [[V71:%[a-zA-Z0-9_.$-]+]]: f64, [[V72:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V71]], [[V74]] : f64
// CHECK-NEXT:    [[V76:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V77:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V75]], [[V76]] : f64
// CHECK-NEXT:    [[V78:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V79:%[a-zA-Z0-9_.$-]+]] = arith.select [[V77]], [[V78]], [[V75]] : f64
// CHECK-NEXT:    [[V80:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V81:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V79]], [[V80]] : f64
// CHECK-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V83:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V81]], [[V82]] : f64
// CHECK-NEXT:    [[V84:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V85:%[a-zA-Z0-9_.$-]+]] = arith.select [[V83]], [[V84]], [[V81]] : f64
// CHECK-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V85]] : f64
// CHECK-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V73]], [[V86]] : f64
// CHECK-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V69]], [[V88]] : f64
// CHECK-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V67]], [[V89]] : f64
// CHECK-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V70]], [[V91]] : f64
// CHECK-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V92]] : f64
// CHECK-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V90]], [[V93]] : f64
// CHECK-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V87]], [[V94]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V95]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[V29]]) init([[V96]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V98:%[a-zA-Z0-9_.$-]+]]: f64, [[V99:%[a-zA-Z0-9_.$-]+]]: f64, [[V100:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V98]], [[V99]] : f64
// CHECK-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V100]], [[V101]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V102]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// CHECK-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V103]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0([[V105:%[a-zA-Z0-9_.$-]+]]: f64, [[V106:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V106]], [[V105]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V107]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V66]], [[V97]], [[V104]] : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]]) init([[V0]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V3]], [[V2]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V4]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// INPUTS-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[V1]]) init([[V5]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V8]], [[V10]] : f64
// INPUTS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V7]], [[V11]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V12]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// INPUTS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V6]]) init([[V13]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V16]], [[V15]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V17]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// INPUTS-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V6]], [[V14]]) init([[V18]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64, [[V22:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V21]], [[V23]] : f64
// INPUTS-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V20]], [[V24]] : f64
// INPUTS-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V25]], [[V25]] : f64
// INPUTS-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V22]], [[V26]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V27]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// INPUTS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V6]], [[V19]]) init([[V28]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V30:%[a-zA-Z0-9_.$-]+]]: f64, [[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V31]], [[V33]] : f64
// INPUTS-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V34]], [[V35]] : f64
// INPUTS-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.select [[V36]], [[V37]], [[V34]] : f64
// INPUTS-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// INPUTS-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V38]], [[V39]] : f64
// INPUTS-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V40]], [[V41]] : f64
// INPUTS-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.select [[V42]], [[V43]], [[V40]] : f64
// INPUTS-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V44]] : f64
// INPUTS-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V30]], [[V45]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V46]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// INPUTS-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[GAMMA]]) init([[V47]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V49:%[a-zA-Z0-9_.$-]+]]: f64, [[V50:%[a-zA-Z0-9_.$-]+]]: f64, [[V51:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V49]], [[V50]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V52]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// INPUTS-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V48]]) init([[V53]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V55:%[a-zA-Z0-9_.$-]+]]: f64, [[V56:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V56]], [[V55]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V57]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// INPUTS-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V48]], [[V29]]) init([[V58]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V60:%[a-zA-Z0-9_.$-]+]]: f64, [[V61:%[a-zA-Z0-9_.$-]+]]: f64, [[V62:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V60]], [[V61]] : f64
// INPUTS-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V62]], [[V63]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V64]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// INPUTS-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V48]], [[V29]], [[V54]], [[V59]], [[V19]]) init([[V65]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V67:%[a-zA-Z0-9_.$-]+]]: f64, [[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64, [[V71:%[a-zA-Z0-9_.$-]+]]: f64, [[V72:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// INPUTS-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V71]], [[V74]] : f64
// INPUTS-NEXT:    [[V76:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V77:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V75]], [[V76]] : f64
// INPUTS-NEXT:    [[V78:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V79:%[a-zA-Z0-9_.$-]+]] = arith.select [[V77]], [[V78]], [[V75]] : f64
// INPUTS-NEXT:    [[V80:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// INPUTS-NEXT:    [[V81:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V79]], [[V80]] : f64
// INPUTS-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V83:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V81]], [[V82]] : f64
// INPUTS-NEXT:    [[V84:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V85:%[a-zA-Z0-9_.$-]+]] = arith.select [[V83]], [[V84]], [[V81]] : f64
// INPUTS-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V85]] : f64
// INPUTS-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V73]], [[V86]] : f64
// INPUTS-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V69]], [[V88]] : f64
// INPUTS-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V67]], [[V89]] : f64
// INPUTS-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// INPUTS-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V70]], [[V91]] : f64
// INPUTS-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V92]] : f64
// INPUTS-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V90]], [[V93]] : f64
// INPUTS-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V87]], [[V94]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V95]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// INPUTS-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[V29]]) init([[V96]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// INPUTS-NEXT:    ^bb0([[V98:%[a-zA-Z0-9_.$-]+]]: f64, [[V99:%[a-zA-Z0-9_.$-]+]]: f64, [[V100:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V98]], [[V99]] : f64
// INPUTS-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V100]], [[V101]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V102]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<3xf64>} : tensor<3xf64>
// INPUTS-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V103]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["reduction", "parallel"]} : (tensor<2x3xf64>), (tensor<3xf64>) -> tensor<3xf64> {
// INPUTS-NEXT:    ^bb0([[V105:%[a-zA-Z0-9_.$-]+]]: f64, [[V106:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V106]], [[V105]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V107]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    func.return [[Y]], [[V66]], [[V97]], [[V104]] : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %gamma: tensor<3xf64>, %beta: tensor<3xf64>) -> tensor<2x3xf64> {
  %y = tlir.layernorm %x affine(%gamma, %beta) {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
