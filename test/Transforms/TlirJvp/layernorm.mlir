// layernorm: mean, re-centred variance, sqrt(max(max(v, 0) + eps, 0)) and (c/σ)·γ + β all on
// duals: every sum a dual fold, every /N the quotient rule by (N, 0).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DGAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DBETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V1]], [[V3]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V6]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V7]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V10]], [[V11]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V12]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V14]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]], [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V4]], [[V5]]) init([[V13]], [[V15]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64, [[V22:%[a-zA-Z0-9_.$-]+]]: f64, [[V23:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V20]], [[V24]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V24]], [[V24]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V21]], [[V24]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V25]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V28]], [[V29]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V30]], [[V27]] : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V18]], [[V26]] : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V19]], [[V31]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V32]], [[V33]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V34]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V36]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]], [[V39:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V16]], [[V17]]) init([[V35]], [[V37]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V40:%[a-zA-Z0-9_.$-]+]]: f64, [[V41:%[a-zA-Z0-9_.$-]+]]: f64, [[V42:%[a-zA-Z0-9_.$-]+]]: f64, [[V43:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V42]], [[V40]] : f64
// CHECK-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V43]], [[V41]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V44]], [[V45]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V46]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V48]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]], [[V51:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V16]], [[V17]], [[V38]], [[V39]]) init([[V47]], [[V49]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V52:%[a-zA-Z0-9_.$-]+]]: f64, [[V53:%[a-zA-Z0-9_.$-]+]]: f64, [[V54:%[a-zA-Z0-9_.$-]+]]: f64, [[V55:%[a-zA-Z0-9_.$-]+]]: f64, [[V56:%[a-zA-Z0-9_.$-]+]]: f64, [[V57:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V54]], [[V58]] : f64
// CHECK-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V58]] : f64
// CHECK-NEXT:    [[V62:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V55]], [[V58]] : f64
// CHECK-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V54]], [[V59]] : f64
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V62]], [[V63]] : f64
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V64]], [[V61]] : f64
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V52]], [[V60]] : f64
// CHECK-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V53]], [[V65]] : f64
// CHECK-NEXT:    [[V68:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V66]], [[V66]] : f64
// CHECK-NEXT:    [[V69:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V67]], [[V66]] : f64
// CHECK-NEXT:    [[V70:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V66]], [[V67]] : f64
// CHECK-NEXT:    [[V71:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V69]], [[V70]] : f64
// CHECK-NEXT:    [[V72:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V56]], [[V68]] : f64
// CHECK-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V57]], [[V71]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V72]], [[V73]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V74]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V76:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V16]], [[V17]], [[V50]], [[V51]], [[GAMMA]], [[DGAMMA]], [[BETA]], [[DBETA]]) init([[V75]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V77:%[a-zA-Z0-9_.$-]+]]: f64, [[V78:%[a-zA-Z0-9_.$-]+]]: f64, [[V79:%[a-zA-Z0-9_.$-]+]]: f64, [[V80:%[a-zA-Z0-9_.$-]+]]: f64, [[V81:%[a-zA-Z0-9_.$-]+]]: f64, [[V82:%[a-zA-Z0-9_.$-]+]]: f64, [[V83:%[a-zA-Z0-9_.$-]+]]: f64, [[V84:%[a-zA-Z0-9_.$-]+]]: f64, [[V85:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V79]], [[V86]] : f64
// CHECK-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V86]], [[V86]] : f64
// CHECK-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V80]], [[V86]] : f64
// CHECK-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V79]], [[V87]] : f64
// CHECK-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V90]], [[V91]] : f64
// CHECK-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V92]], [[V89]] : f64
// CHECK-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V88]], [[V94]] : f64
// CHECK-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V94]], [[V88]] : f64
// CHECK-NEXT:    [[V98:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V99:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V98]], [[V93]] : f64
// CHECK-NEXT:    [[V100:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V98]], [[V95]] : f64
// CHECK-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V99]], [[V100]] : f64
// CHECK-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.select [[V97]], [[V95]], [[V101]] : f64
// CHECK-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = arith.select [[V96]], [[V93]], [[V102]] : f64
// CHECK-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V88]], [[V94]] : f64
// CHECK-NEXT:    [[V105:%[a-zA-Z0-9_.$-]+]] = arith.select [[V104]], [[V94]], [[V88]] : f64
// CHECK-NEXT:    [[V106:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V105]], [[V106]] : f64
// CHECK-NEXT:    [[V108:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V109:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V103]], [[V108]] : f64
// CHECK-NEXT:    [[V110:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V111:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V112:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V107]], [[V110]] : f64
// CHECK-NEXT:    [[V113:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V110]], [[V107]] : f64
// CHECK-NEXT:    [[V114:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V115:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V114]], [[V109]] : f64
// CHECK-NEXT:    [[V116:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V114]], [[V111]] : f64
// CHECK-NEXT:    [[V117:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V115]], [[V116]] : f64
// CHECK-NEXT:    [[V118:%[a-zA-Z0-9_.$-]+]] = arith.select [[V113]], [[V111]], [[V117]] : f64
// CHECK-NEXT:    [[V119:%[a-zA-Z0-9_.$-]+]] = arith.select [[V112]], [[V109]], [[V118]] : f64
// CHECK-NEXT:    [[V120:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V107]], [[V110]] : f64
// CHECK-NEXT:    [[V121:%[a-zA-Z0-9_.$-]+]] = arith.select [[V120]], [[V110]], [[V107]] : f64
// CHECK-NEXT:    [[V122:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V121]] : f64
// CHECK-NEXT:    [[V123:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V124:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V123]], [[V122]] : f64
// CHECK-NEXT:    [[V125:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V119]], [[V124]] : f64
// CHECK-NEXT:    [[V126:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V127:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V121]], [[V126]] : f64
// CHECK-NEXT:    [[V128:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V129:%[a-zA-Z0-9_.$-]+]] = arith.select [[V127]], [[V125]], [[V128]] : f64
// CHECK-NEXT:    [[V130:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V77]], [[V122]] : f64
// CHECK-NEXT:    [[V131:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V122]], [[V122]] : f64
// CHECK-NEXT:    [[V132:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V78]], [[V122]] : f64
// CHECK-NEXT:    [[V133:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V77]], [[V129]] : f64
// CHECK-NEXT:    [[V134:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V132]], [[V133]] : f64
// CHECK-NEXT:    [[V135:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V134]], [[V131]] : f64
// CHECK-NEXT:    [[V136:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V135]], [[V81]] : f64
// CHECK-NEXT:    [[V137:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V130]], [[V82]] : f64
// CHECK-NEXT:    [[V138:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V136]], [[V137]] : f64
// CHECK-NEXT:    [[V139:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V138]], [[V84]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V139]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V76]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DGAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DBETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// PARAMS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<2xf64>
// PARAMS-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]], [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V1]], [[V3]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// PARAMS-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V6]] : f64
// PARAMS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V7]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V10]], [[V11]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V12]] : (tensor<f64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V14]] : (tensor<f64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]], [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V4]], [[V5]]) init([[V13]], [[V15]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64, [[V22:%[a-zA-Z0-9_.$-]+]]: f64, [[V23:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// PARAMS-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V20]], [[V24]] : f64
// PARAMS-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V24]], [[V24]] : f64
// PARAMS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V21]], [[V24]] : f64
// PARAMS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V25]] : f64
// PARAMS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V28]], [[V29]] : f64
// PARAMS-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V30]], [[V27]] : f64
// PARAMS-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V18]], [[V26]] : f64
// PARAMS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V19]], [[V31]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V32]], [[V33]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V34]] : (tensor<f64>) -> tensor<2xf64>
// PARAMS-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V36]] : (tensor<f64>) -> tensor<2xf64>
// PARAMS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]], [[V39:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V16]], [[V17]]) init([[V35]], [[V37]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// PARAMS-NEXT:    ^bb0([[V40:%[a-zA-Z0-9_.$-]+]]: f64, [[V41:%[a-zA-Z0-9_.$-]+]]: f64, [[V42:%[a-zA-Z0-9_.$-]+]]: f64, [[V43:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V42]], [[V40]] : f64
// PARAMS-NEXT:    [[V45:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V43]], [[V41]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V44]], [[V45]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V46:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V47:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V46]] : (tensor<f64>) -> tensor<2xf64>
// PARAMS-NEXT:    [[V48:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V49:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V48]] : (tensor<f64>) -> tensor<2xf64>
// PARAMS-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]], [[V51:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V16]], [[V17]], [[V38]], [[V39]]) init([[V47]], [[V49]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// PARAMS-NEXT:    ^bb0([[V52:%[a-zA-Z0-9_.$-]+]]: f64, [[V53:%[a-zA-Z0-9_.$-]+]]: f64, [[V54:%[a-zA-Z0-9_.$-]+]]: f64, [[V55:%[a-zA-Z0-9_.$-]+]]: f64, [[V56:%[a-zA-Z0-9_.$-]+]]: f64, [[V57:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// PARAMS-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V54]], [[V58]] : f64
// PARAMS-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V58]] : f64
// PARAMS-NEXT:    [[V62:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V55]], [[V58]] : f64
// PARAMS-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V54]], [[V59]] : f64
// PARAMS-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V62]], [[V63]] : f64
// PARAMS-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V64]], [[V61]] : f64
// PARAMS-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V52]], [[V60]] : f64
// PARAMS-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V53]], [[V65]] : f64
// PARAMS-NEXT:    [[V68:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V66]], [[V66]] : f64
// PARAMS-NEXT:    [[V69:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V67]], [[V66]] : f64
// PARAMS-NEXT:    [[V70:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V66]], [[V67]] : f64
// PARAMS-NEXT:    [[V71:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V69]], [[V70]] : f64
// PARAMS-NEXT:    [[V72:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V56]], [[V68]] : f64
// PARAMS-NEXT:    [[V73:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V57]], [[V71]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V72]], [[V73]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V74:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V75:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V74]] : (tensor<f64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V76:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V16]], [[V17]], [[V50]], [[V51]], [[GAMMA]], [[DGAMMA]], [[BETA]], [[DBETA]]) init([[V75]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V77:%[a-zA-Z0-9_.$-]+]]: f64, [[V78:%[a-zA-Z0-9_.$-]+]]: f64, [[V79:%[a-zA-Z0-9_.$-]+]]: f64, [[V80:%[a-zA-Z0-9_.$-]+]]: f64, [[V81:%[a-zA-Z0-9_.$-]+]]: f64, [[V82:%[a-zA-Z0-9_.$-]+]]: f64, [[V83:%[a-zA-Z0-9_.$-]+]]: f64, [[V84:%[a-zA-Z0-9_.$-]+]]: f64, [[V85:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// PARAMS-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V79]], [[V86]] : f64
// PARAMS-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V86]], [[V86]] : f64
// PARAMS-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V80]], [[V86]] : f64
// PARAMS-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V79]], [[V87]] : f64
// PARAMS-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V90]], [[V91]] : f64
// PARAMS-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V92]], [[V89]] : f64
// PARAMS-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V88]], [[V94]] : f64
// PARAMS-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V94]], [[V88]] : f64
// PARAMS-NEXT:    [[V98:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// PARAMS-NEXT:    [[V99:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V98]], [[V93]] : f64
// PARAMS-NEXT:    [[V100:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V98]], [[V95]] : f64
// PARAMS-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V99]], [[V100]] : f64
// PARAMS-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.select [[V97]], [[V95]], [[V101]] : f64
// PARAMS-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = arith.select [[V96]], [[V93]], [[V102]] : f64
// PARAMS-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V88]], [[V94]] : f64
// PARAMS-NEXT:    [[V105:%[a-zA-Z0-9_.$-]+]] = arith.select [[V104]], [[V94]], [[V88]] : f64
// PARAMS-NEXT:    [[V106:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// PARAMS-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V105]], [[V106]] : f64
// PARAMS-NEXT:    [[V108:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V109:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V103]], [[V108]] : f64
// PARAMS-NEXT:    [[V110:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V111:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V112:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V107]], [[V110]] : f64
// PARAMS-NEXT:    [[V113:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V110]], [[V107]] : f64
// PARAMS-NEXT:    [[V114:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// PARAMS-NEXT:    [[V115:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V114]], [[V109]] : f64
// PARAMS-NEXT:    [[V116:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V114]], [[V111]] : f64
// PARAMS-NEXT:    [[V117:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V115]], [[V116]] : f64
// PARAMS-NEXT:    [[V118:%[a-zA-Z0-9_.$-]+]] = arith.select [[V113]], [[V111]], [[V117]] : f64
// PARAMS-NEXT:    [[V119:%[a-zA-Z0-9_.$-]+]] = arith.select [[V112]], [[V109]], [[V118]] : f64
// PARAMS-NEXT:    [[V120:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V107]], [[V110]] : f64
// PARAMS-NEXT:    [[V121:%[a-zA-Z0-9_.$-]+]] = arith.select [[V120]], [[V110]], [[V107]] : f64
// PARAMS-NEXT:    [[V122:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V121]] : f64
// PARAMS-NEXT:    [[V123:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// PARAMS-NEXT:    [[V124:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V123]], [[V122]] : f64
// PARAMS-NEXT:    [[V125:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V119]], [[V124]] : f64
// PARAMS-NEXT:    [[V126:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V127:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V121]], [[V126]] : f64
// PARAMS-NEXT:    [[V128:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V129:%[a-zA-Z0-9_.$-]+]] = arith.select [[V127]], [[V125]], [[V128]] : f64
// PARAMS-NEXT:    [[V130:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V77]], [[V122]] : f64
// PARAMS-NEXT:    [[V131:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V122]], [[V122]] : f64
// PARAMS-NEXT:    [[V132:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V78]], [[V122]] : f64
// PARAMS-NEXT:    [[V133:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V77]], [[V129]] : f64
// PARAMS-NEXT:    [[V134:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V132]], [[V133]] : f64
// PARAMS-NEXT:    [[V135:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V134]], [[V131]] : f64
// PARAMS-NEXT:    [[V136:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V135]], [[V81]] : f64
// PARAMS-NEXT:    [[V137:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V130]], [[V82]] : f64
// PARAMS-NEXT:    [[V138:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V136]], [[V137]] : f64
// PARAMS-NEXT:    [[V139:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V138]], [[V84]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V139]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    func.return [[Y]], [[V76]] : tensor<2x3xf64>, tensor<2x3xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %gamma: tensor<3xf64>, %beta: tensor<3xf64>) -> tensor<2x3xf64> {
  %y = tlir.layernorm %x affine(%gamma, %beta) {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
