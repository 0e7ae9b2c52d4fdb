// layernorm: mean, re-centred variance, sqrt(max(max(v, 0) + eps, 0)) and (c/σ)·γ + β all on
// duals: every sum a dual fold, every /N the quotient rule by (N, 0).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DGAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DBETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]], [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V0]], [[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V4]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V5]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]], [[V9]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]], [[V13:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V2]], [[V3]]) init([[V10]], [[V11]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V16]], [[V20]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V20]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V17]], [[V20]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V21]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V24]], [[V25]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V26]], [[V23]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V14]], [[V22]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V15]], [[V27]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V28]], [[V29]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]], [[V33:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V12]], [[V13]]) init([[V30]], [[V31]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V34:%[a-zA-Z0-9_.$-]+]]: f64, [[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V36]], [[V34]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V37]], [[V35]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V38]], [[V39]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]], [[V43:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V12]], [[V13]], [[V32]], [[V33]]) init([[V40]], [[V41]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V44:%[a-zA-Z0-9_.$-]+]]: f64, [[V45:%[a-zA-Z0-9_.$-]+]]: f64, [[V46:%[a-zA-Z0-9_.$-]+]]: f64, [[V47:%[a-zA-Z0-9_.$-]+]]: f64, [[V48:%[a-zA-Z0-9_.$-]+]]: f64, [[V49:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V46]], [[V50]] : f64
// CHECK-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V50]], [[V50]] : f64
// CHECK-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V47]], [[V50]] : f64
// CHECK-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V46]], [[V51]] : f64
// CHECK-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V54]], [[V55]] : f64
// CHECK-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V56]], [[V53]] : f64
// CHECK-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V44]], [[V52]] : f64
// CHECK-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V45]], [[V57]] : f64
// CHECK-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V58]] : f64
// CHECK-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V59]], [[V58]] : f64
// CHECK-NEXT:    [[V62:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V59]] : f64
// CHECK-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V61]], [[V62]] : f64
// CHECK-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V48]], [[V60]] : f64
// CHECK-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V49]], [[V63]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V64]], [[V65]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V12]], [[V13]], [[V42]], [[V43]], [[GAMMA]], [[DGAMMA]], [[BETA]], [[DBETA]]) init([[V66]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64, [[V71:%[a-zA-Z0-9_.$-]+]]: f64, [[V72:%[a-zA-Z0-9_.$-]+]]: f64, [[V73:%[a-zA-Z0-9_.$-]+]]: f64, [[V74:%[a-zA-Z0-9_.$-]+]]: f64, [[V75:%[a-zA-Z0-9_.$-]+]]: f64, [[V76:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V77:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:    [[V78:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V79:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V70]], [[V77]] : f64
// CHECK-NEXT:    [[V80:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V77]], [[V77]] : f64
// CHECK-NEXT:    [[V81:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V71]], [[V77]] : f64
// CHECK-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V70]], [[V78]] : f64
// CHECK-NEXT:    [[V83:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V81]], [[V82]] : f64
// CHECK-NEXT:    [[V84:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V83]], [[V80]] : f64
// CHECK-NEXT:    [[V85:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V79]], [[V85]] : f64
// CHECK-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V85]], [[V79]] : f64
// CHECK-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V89]], [[V84]] : f64
// CHECK-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V89]], [[V86]] : f64
// CHECK-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V90]], [[V91]] : f64
// CHECK-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.select [[V88]], [[V86]], [[V92]] : f64
// CHECK-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.select [[V87]], [[V84]], [[V93]] : f64
// CHECK-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V79]], [[V85]] : f64
// CHECK-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = arith.select [[V95]], [[V85]], [[V79]] : f64
// CHECK-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:    [[V98:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V96]], [[V97]] : f64
// CHECK-NEXT:    [[V99:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V100:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V94]], [[V99]] : f64
// CHECK-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V98]], [[V101]] : f64
// CHECK-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V101]], [[V98]] : f64
// CHECK-NEXT:    [[V105:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V106:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V105]], [[V100]] : f64
// CHECK-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V105]], [[V102]] : f64
// CHECK-NEXT:    [[V108:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V106]], [[V107]] : f64
// CHECK-NEXT:    [[V109:%[a-zA-Z0-9_.$-]+]] = arith.select [[V104]], [[V102]], [[V108]] : f64
// CHECK-NEXT:    [[V110:%[a-zA-Z0-9_.$-]+]] = arith.select [[V103]], [[V100]], [[V109]] : f64
// CHECK-NEXT:    [[V111:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V98]], [[V101]] : f64
// CHECK-NEXT:    [[V112:%[a-zA-Z0-9_.$-]+]] = arith.select [[V111]], [[V101]], [[V98]] : f64
// CHECK-NEXT:    [[V113:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V112]] : f64
// CHECK-NEXT:    [[V114:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V115:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V114]], [[V113]] : f64
// CHECK-NEXT:    [[V116:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V110]], [[V115]] : f64
// CHECK-NEXT:    [[V117:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V118:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V112]], [[V117]] : f64
// CHECK-NEXT:    [[V119:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V120:%[a-zA-Z0-9_.$-]+]] = arith.select [[V118]], [[V116]], [[V119]] : f64
// CHECK-NEXT:    [[V121:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V68]], [[V113]] : f64
// CHECK-NEXT:    [[V122:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V113]], [[V113]] : f64
// CHECK-NEXT:    [[V123:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V69]], [[V113]] : f64
// CHECK-NEXT:    [[V124:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V120]] : f64
// CHECK-NEXT:    [[V125:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V123]], [[V124]] : f64
// CHECK-NEXT:    [[V126:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V125]], [[V122]] : f64
// CHECK-NEXT:    [[V127:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V126]], [[V72]] : f64
// CHECK-NEXT:    [[V128:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V121]], [[V73]] : f64
// CHECK-NEXT:    [[V129:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V127]], [[V128]] : f64
// CHECK-NEXT:    [[V130:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V129]], [[V75]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V130]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V67]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[GAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[BETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DGAMMA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[DBETA:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.layernorm [[X]] affine([[GAMMA]], [[BETA]]) {axis = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// PARAMS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// PARAMS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]], [[V3:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]]) init([[V0]], [[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// PARAMS-NEXT:    ^bb0([[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V4]] : f64
// PARAMS-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V5]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V8]], [[V9]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// PARAMS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// PARAMS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]], [[V13:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[DX]], [[V2]], [[V3]]) init([[V10]], [[V11]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// PARAMS-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V16]], [[V20]] : f64
// PARAMS-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V20]], [[V20]] : f64
// PARAMS-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V17]], [[V20]] : f64
// PARAMS-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V21]] : f64
// PARAMS-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V24]], [[V25]] : f64
// PARAMS-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V26]], [[V23]] : f64
// PARAMS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V14]], [[V22]] : f64
// PARAMS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V15]], [[V27]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V28]], [[V29]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// PARAMS-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// PARAMS-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]], [[V33:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V12]], [[V13]]) init([[V30]], [[V31]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// PARAMS-NEXT:    ^bb0([[V34:%[a-zA-Z0-9_.$-]+]]: f64, [[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V36]], [[V34]] : f64
// PARAMS-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V37]], [[V35]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V38]], [[V39]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// PARAMS-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// PARAMS-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]], [[V43:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V12]], [[V13]], [[V32]], [[V33]]) init([[V40]], [[V41]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
// PARAMS-NEXT:    ^bb0([[V44:%[a-zA-Z0-9_.$-]+]]: f64, [[V45:%[a-zA-Z0-9_.$-]+]]: f64, [[V46:%[a-zA-Z0-9_.$-]+]]: f64, [[V47:%[a-zA-Z0-9_.$-]+]]: f64, [[V48:%[a-zA-Z0-9_.$-]+]]: f64, [[V49:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V50:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// PARAMS-NEXT:    [[V51:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V52:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V46]], [[V50]] : f64
// PARAMS-NEXT:    [[V53:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V50]], [[V50]] : f64
// PARAMS-NEXT:    [[V54:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V47]], [[V50]] : f64
// PARAMS-NEXT:    [[V55:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V46]], [[V51]] : f64
// PARAMS-NEXT:    [[V56:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V54]], [[V55]] : f64
// PARAMS-NEXT:    [[V57:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V56]], [[V53]] : f64
// PARAMS-NEXT:    [[V58:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V44]], [[V52]] : f64
// PARAMS-NEXT:    [[V59:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V45]], [[V57]] : f64
// PARAMS-NEXT:    [[V60:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V58]] : f64
// PARAMS-NEXT:    [[V61:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V59]], [[V58]] : f64
// PARAMS-NEXT:    [[V62:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V58]], [[V59]] : f64
// PARAMS-NEXT:    [[V63:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V61]], [[V62]] : f64
// PARAMS-NEXT:    [[V64:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V48]], [[V60]] : f64
// PARAMS-NEXT:    [[V65:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V49]], [[V63]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V64]], [[V65]] : f64, f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V66:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// PARAMS-NEXT:    [[V67:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V12]], [[V13]], [[V42]], [[V43]], [[GAMMA]], [[DGAMMA]], [[BETA]], [[DBETA]]) init([[V66]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V68:%[a-zA-Z0-9_.$-]+]]: f64, [[V69:%[a-zA-Z0-9_.$-]+]]: f64, [[V70:%[a-zA-Z0-9_.$-]+]]: f64, [[V71:%[a-zA-Z0-9_.$-]+]]: f64, [[V72:%[a-zA-Z0-9_.$-]+]]: f64, [[V73:%[a-zA-Z0-9_.$-]+]]: f64, [[V74:%[a-zA-Z0-9_.$-]+]]: f64, [[V75:%[a-zA-Z0-9_.$-]+]]: f64, [[V76:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V77:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f64
// PARAMS-NEXT:    [[V78:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V79:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V70]], [[V77]] : f64
// PARAMS-NEXT:    [[V80:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V77]], [[V77]] : f64
// PARAMS-NEXT:    [[V81:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V71]], [[V77]] : f64
// PARAMS-NEXT:    [[V82:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V70]], [[V78]] : f64
// PARAMS-NEXT:    [[V83:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V81]], [[V82]] : f64
// PARAMS-NEXT:    [[V84:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V83]], [[V80]] : f64
// PARAMS-NEXT:    [[V85:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V86:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V87:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V79]], [[V85]] : f64
// PARAMS-NEXT:    [[V88:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V85]], [[V79]] : f64
// PARAMS-NEXT:    [[V89:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// PARAMS-NEXT:    [[V90:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V89]], [[V84]] : f64
// PARAMS-NEXT:    [[V91:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V89]], [[V86]] : f64
// PARAMS-NEXT:    [[V92:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V90]], [[V91]] : f64
// PARAMS-NEXT:    [[V93:%[a-zA-Z0-9_.$-]+]] = arith.select [[V88]], [[V86]], [[V92]] : f64
// PARAMS-NEXT:    [[V94:%[a-zA-Z0-9_.$-]+]] = arith.select [[V87]], [[V84]], [[V93]] : f64
// PARAMS-NEXT:    [[V95:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V79]], [[V85]] : f64
// PARAMS-NEXT:    [[V96:%[a-zA-Z0-9_.$-]+]] = arith.select [[V95]], [[V85]], [[V79]] : f64
// PARAMS-NEXT:    [[V97:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-05 : f64
// PARAMS-NEXT:    [[V98:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V96]], [[V97]] : f64
// PARAMS-NEXT:    [[V99:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V100:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V94]], [[V99]] : f64
// PARAMS-NEXT:    [[V101:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V102:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V103:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V98]], [[V101]] : f64
// PARAMS-NEXT:    [[V104:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V101]], [[V98]] : f64
// PARAMS-NEXT:    [[V105:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// PARAMS-NEXT:    [[V106:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V105]], [[V100]] : f64
// PARAMS-NEXT:    [[V107:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V105]], [[V102]] : f64
// PARAMS-NEXT:    [[V108:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V106]], [[V107]] : f64
// PARAMS-NEXT:    [[V109:%[a-zA-Z0-9_.$-]+]] = arith.select [[V104]], [[V102]], [[V108]] : f64
// PARAMS-NEXT:    [[V110:%[a-zA-Z0-9_.$-]+]] = arith.select [[V103]], [[V100]], [[V109]] : f64
// PARAMS-NEXT:    [[V111:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V98]], [[V101]] : f64
// PARAMS-NEXT:    [[V112:%[a-zA-Z0-9_.$-]+]] = arith.select [[V111]], [[V101]], [[V98]] : f64
// PARAMS-NEXT:    [[V113:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V112]] : f64
// PARAMS-NEXT:    [[V114:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// PARAMS-NEXT:    [[V115:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V114]], [[V113]] : f64
// PARAMS-NEXT:    [[V116:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V110]], [[V115]] : f64
// PARAMS-NEXT:    [[V117:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V118:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V112]], [[V117]] : f64
// PARAMS-NEXT:    [[V119:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// PARAMS-NEXT:    [[V120:%[a-zA-Z0-9_.$-]+]] = arith.select [[V118]], [[V116]], [[V119]] : f64
// PARAMS-NEXT:    [[V121:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V68]], [[V113]] : f64
// PARAMS-NEXT:    [[V122:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V113]], [[V113]] : f64
// PARAMS-NEXT:    [[V123:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V69]], [[V113]] : f64
// PARAMS-NEXT:    [[V124:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V68]], [[V120]] : f64
// PARAMS-NEXT:    [[V125:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V123]], [[V124]] : f64
// PARAMS-NEXT:    [[V126:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V125]], [[V122]] : f64
// PARAMS-NEXT:    [[V127:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V126]], [[V72]] : f64
// PARAMS-NEXT:    [[V128:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V121]], [[V73]] : f64
// PARAMS-NEXT:    [[V129:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V127]], [[V128]] : f64
// PARAMS-NEXT:    [[V130:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V129]], [[V75]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V130]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    func.return [[Y]], [[V67]] : tensor<2x3xf64>, tensor<2x3xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %gamma: tensor<3xf64>, %beta: tensor<3xf64>) -> tensor<2x3xf64> {
  %y = tlir.layernorm %x affine(%gamma, %beta) {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
