// linear: per output, a fold from +0 over i of ((dW·x) + (W·dx)), then + db (payload tangents +0
// unless seeded).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[W]], [[DW]], [[X]], [[DX]]) init([[V0]]) {bounds = array<i64: 2, 4, 3>, maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<4x3xf64>, tensor<4x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V5]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V8]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V9]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V10]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V1]], [[DB]]) init([[V11]]) {bounds = array<i64: 2, 4>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x4xf64>, tensor<4xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// CHECK-NEXT:    ^bb0([[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V13]], [[V14]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V16]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V12]] : tensor<2x4xf64>, tensor<2x4xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// PARAMS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[W]], [[DW]], [[X]], [[DX]]) init([[V0]]) {bounds = array<i64: 2, 4, 3>, maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<4x3xf64>, tensor<4x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// PARAMS-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// PARAMS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V5]] : f64
// PARAMS-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V8]] : f64
// PARAMS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V9]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V10]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// PARAMS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V1]], [[DB]]) init([[V11]]) {bounds = array<i64: 2, 4>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x4xf64>, tensor<4xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// PARAMS-NEXT:    ^bb0([[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V13]], [[V14]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V16]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    func.return [[Y]], [[V12]] : tensor<2x4xf64>, tensor<2x4xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}
