// custom: the callee's dual execution on the call's (primal, tangent) operands, emitted inline;
// its primal result is the call's value, so no tlir.custom is left.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[S:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DS:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[R:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[X]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V1]], [[V3]] : f64
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V6]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V6]], [[V1]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V10]], [[V2]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V10]], [[V7]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V12]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V7]], [[V13]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.select [[V8]], [[V2]], [[V14]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.select [[V4]], [[V5]], [[V15]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V16]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[Q:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[R]], [[S]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[R]], [[V0]], [[S]], [[DS]]) : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V19]], [[V20]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V21]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V22]], [[V23]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V24]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Q]], [[V17]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>, %s: tensor<4xf64>) -> tensor<4xf64> {
  %y = tlir.custom @kernel(%x, %s) {name = "scaled relu"} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
func.func @kernel(%u: tensor<4xf64>, %v: tensor<4xf64>) -> tensor<4xf64> {
  %r = tlir.relu %u : (tensor<4xf64>) -> tensor<4xf64>
  %q = tlir.mul_elem %r, %v : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %q : tensor<4xf64>
}
