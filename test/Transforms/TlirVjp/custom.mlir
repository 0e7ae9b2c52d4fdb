// custom: the callee's forward ops in the forward copy in place of the call, then the callee's
// own reverse sweep on their values: its VJP with respect to its arguments.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[S:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[R:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[X]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[Q:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[R]], [[S]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[S]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[R]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[V0]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V3]], [[V5]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.select [[V6]], [[V7]], [[V8]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V9]], [[V4]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V10]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Q]], [[V2]], [[V1]] : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
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
