// mse_loss: d = ŷ - t and d·d on duals; both folded from +0; the total over (n, 0) by the quotient
// rule (n = size, or 1).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DA:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<f64>, tensor<f64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mse_loss [[A]], [[B]] : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]], [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[A]], [[DA]], [[B]], [[DB]]) : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V2]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V3]], [[V5]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V6]], [[V6]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V6]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V6]], [[V7]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V10]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]], [[V11]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[V0]] : (tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[V1]] : (tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V12]], [[V13]]) : (tensor<f64>, tensor<f64>) -> tensor<f64> {
// CHECK-NEXT:    ^bb0([[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.constant 6.000000e+00 : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V17]], [[V17]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V16]], [[V17]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V18]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V20]], [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V22]], [[V19]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V23]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V14]] : tensor<f64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<f64> {
  %y = tlir.mse_loss %a, %b : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
  func.return %y : tensor<f64>
}
