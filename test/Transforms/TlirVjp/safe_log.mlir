// safe_log: (sigmoid(x) / (softplus(x) + eps))·g; eps gets nothing (docs/autodiff.md#d8-safe_log-epsilon).
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[EPS:%[a-zA-Z0-9_.$-]+]]: tensor<f64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<f64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.safe_log [[X]], [[EPS]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[EPS]], [[DY0]]) : (tensor<4xf64>, tensor<f64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V4]] : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V1]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.select [[V5]], [[V6]], [[V1]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = math.exp [[V7]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V8]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V11]], [[V10]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V8]], [[V10]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V5]], [[V12]], [[V13]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V15]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V1]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.select [[V16]], [[V17]], [[V1]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = math.exp [[V18]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V20]], [[V19]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = math.log [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V1]], [[V22]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.select [[V16]], [[V23]], [[V22]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V24]], [[V2]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V14]], [[V25]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V26]], [[V3]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V27]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    func.return [[Y]], [[V0]], [[V28]] : tensor<4xf64>, tensor<4xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>, %eps: tensor<f64>) -> tensor<4xf64> {
  %y = tlir.safe_log %x, %eps : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
