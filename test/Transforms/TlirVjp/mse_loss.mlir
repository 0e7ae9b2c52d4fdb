// mse_loss: base = (ŷ - t)·((1 + 1)/n); ŷ gets base·g, t gets 0 - base·g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<f64>) -> (tensor<f64>, tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mse_loss [[A]], [[B]] : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]], [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[A]], [[B]], [[DY0]]) : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<f64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[V6]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V2]], [[V3]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 6.000000e+00 : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V7]], [[V9]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V8]], [[V10]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V11]], [[V4]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V13]], [[V12]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V12]], [[V14]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]], [[V1]] : tensor<f64>, tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<f64> {
  %y = tlir.mse_loss %a, %b : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
  func.return %y : tensor<f64>
}
