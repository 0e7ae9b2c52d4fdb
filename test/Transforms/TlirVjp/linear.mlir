// linear: docs/autodiff.md#d5-linear-vjp (leading dims as N rows): dx = fold over o of g·W; dW = fold over rows of g·x; db =
// fold over rows of g; all from +0.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[W]]) init([[V0]]) {bounds = array<i64: 2, 3, 4>, maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x4xf64>, tensor<4x3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V3]] : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V5]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V6]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4x3xf64>} : tensor<4x3xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[X]]) init([[V7]]) {bounds = array<i64: 4, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x4xf64>, tensor<2x3xf64>), (tensor<4x3xf64>) -> tensor<4x3xf64> {
// CHECK-NEXT:    ^bb0([[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V9]], [[V10]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V12]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V13]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V14]]) {bounds = array<i64: 4, 2>, maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x4xf64>), (tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V17]], [[V16]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V18]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V1]], [[V8]], [[V15]] : tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[W]]) init([[V0]]) {bounds = array<i64: 2, 3, 4>, maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x4xf64>, tensor<4x3xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// INPUTS-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V3]] : f64
// INPUTS-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V5]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V6]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4x3xf64>} : tensor<4x3xf64>
// INPUTS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[X]]) init([[V7]]) {bounds = array<i64: 4, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x4xf64>, tensor<2x3xf64>), (tensor<4x3xf64>) -> tensor<4x3xf64> {
// INPUTS-NEXT:    ^bb0([[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V9]], [[V10]] : f64
// INPUTS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V12]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V13]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// INPUTS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V14]]) {bounds = array<i64: 4, 2>, maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x4xf64>), (tensor<4xf64>) -> tensor<4xf64> {
// INPUTS-NEXT:    ^bb0([[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V17]], [[V16]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V18]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    func.return [[Y]], [[V1]], [[V8]], [[V15]] : tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}
