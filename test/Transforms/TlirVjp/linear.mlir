// linear: docs/autodiff.md#d5-linear-vjp (leading dims as N rows): dx = fold over o of g·W; dW = fold over rows of g·x; db =
// fold over rows of g; all from +0. The first two are matmul's fold: dx = matmul(g, W),
// dW = matmul(gᵀ, x) (passes/autodiff/contractions.py). db comes first: its fold reads g
// while the op that made g has just left it in cache.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[ZERO:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[INIT:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[ZERO]] : (tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    [[DB:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[INIT]]) {bounds = array<i64: 4, 2>, maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x4xf64>), (tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V3]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V5]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[DX:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[DY0]], [[W]] : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[GT:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[DY0]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x4xf64>) -> tensor<4x2xf64>
// CHECK-NEXT:    [[DW:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[GT]], [[X]] : (tensor<4x2xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
// CHECK-NEXT:    func.return [[Y]], [[DX]], [[DW]], [[DB]] : tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// INPUTS-NEXT:    [[ZERO:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[INIT:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[ZERO]] : (tensor<f64>) -> tensor<4xf64>
// INPUTS-NEXT:    [[DB:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[INIT]]) {bounds = array<i64: 4, 2>, maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x4xf64>), (tensor<4xf64>) -> tensor<4xf64> {
// INPUTS-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V3]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V5]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[DX:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[DY0]], [[W]] : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[GT:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[DY0]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x4xf64>) -> tensor<4x2xf64>
// INPUTS-NEXT:    [[DW:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[GT]], [[X]] : (tensor<4x2xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
// INPUTS-NEXT:    func.return [[Y]], [[DX]], [[DW]], [[DB]] : tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}
