// linear: per output, a fold from +0 over i of ((dW·x) + (W·dx)), then + db (payload tangents +0
// unless seeded).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[W]], [[DW]], [[X]], [[DX]]) init([[V1]]) {bounds = array<i64: 2, 4, 3>, maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<4x3xf64>, tensor<4x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[V5]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V6]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V9]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V10]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V11]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V12]] : (tensor<f64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V2]], [[DB]]) init([[V13]]) {bounds = array<i64: 2, 4>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x4xf64>, tensor<4xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// CHECK-NEXT:    ^bb0([[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V15]], [[V16]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V18]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V14]] : tensor<2x4xf64>, tensor<2x4xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x4xf64>
// PARAMS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[W]], [[DW]], [[X]], [[DX]]) init([[V1]]) {bounds = array<i64: 2, 4, 3>, maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<4x3xf64>, tensor<4x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// PARAMS-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[V5]] : f64
// PARAMS-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V6]] : f64
// PARAMS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V9]] : f64
// PARAMS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V10]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V11]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V12]] : (tensor<f64>) -> tensor<2x4xf64>
// PARAMS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V2]], [[DB]]) init([[V13]]) {bounds = array<i64: 2, 4>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x4xf64>, tensor<4xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// PARAMS-NEXT:    ^bb0([[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V15]], [[V16]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V18]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    func.return [[Y]], [[V14]] : tensor<2x4xf64>, tensor<2x4xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}
