// safe_log: log(softplus(x) + eps) on duals: (d softplus + deps) / (softplus + eps); eps's tangent
// flows (docs/autodiff.md#d8-safe_log-epsilon).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[EPS:%[a-zA-Z0-9_.$-]+]]: tensor<f64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DEPS:%[a-zA-Z0-9_.$-]+]]: tensor<f64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.safe_log [[X]], [[EPS]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]], [[EPS]], [[DEPS]]) : (tensor<4xf64>, tensor<4xf64>, tensor<f64>, tensor<f64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V1]] : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V2]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = math.exp [[V5]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V6]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V7]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V8]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = math.log [[V10]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V12]], [[V10]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = math.exp [[V1]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V15]], [[V2]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V17]], [[V15]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V19]], [[V16]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = math.log [[V18]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V20]], [[V18]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V23]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V1]], [[V13]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V24]], [[V25]], [[V21]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V2]], [[V14]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.select [[V24]], [[V27]], [[V22]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V26]], [[V3]] : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V28]], [[V4]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V30]], [[V29]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V31]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>, %eps: tensor<f64>) -> tensor<4xf64> {
  %y = tlir.safe_log %x, %eps : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
