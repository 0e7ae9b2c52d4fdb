// linear: docs/autodiff.md#d5-linear-vjp (leading dims as N rows): dx = fold over o of g·W; dW = fold over rows of g·x; db =
// fold over rows of g; all from +0. The first two are matmul's fold: dx = matmul(g, W),
// dW = matmul(gᵀ, x) (passes/autodiff/contractions.py).
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[DX:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[DY0]], [[W]] : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[GT:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[DY0]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x4xf64>) -> tensor<4x2xf64>
// CHECK-NEXT:    [[DW:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[GT]], [[X]] : (tensor<4x2xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V4]]) {bounds = array<i64: 4, 2>, maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x4xf64>), (tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V6]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[DX]], [[DW]], [[V5]] : tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<4x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.linear [[X]], [[W]], [[B]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// INPUTS-NEXT:    [[DX:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[DY0]], [[W]] : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
// INPUTS-NEXT:    [[GT:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[DY0]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x4xf64>) -> tensor<4x2xf64>
// INPUTS-NEXT:    [[DW:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[GT]], [[X]] : (tensor<4x2xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
// INPUTS-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<f64>) -> tensor<4xf64>
// INPUTS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V4]]) {bounds = array<i64: 4, 2>, maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "reduction"]} : (tensor<2x4xf64>), (tensor<4xf64>) -> tensor<4xf64> {
// INPUTS-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V6]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V8]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    func.return [[Y]], [[DX]], [[DW]], [[V5]] : tensor<2x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}
