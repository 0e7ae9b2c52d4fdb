// const: a leaf: with wrt=params or all its gradient is a result of @main_vjp (+0 if unreached).
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[1.000000e+00, -2.000000e+00, 5.000000e-01, 3.000000e+00]> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[W]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[W]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[X]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    func.return [[Y]], [[V0]], [[V1]] : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// INPUTS-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[1.000000e+00, -2.000000e+00, 5.000000e-01, 3.000000e+00]> : tensor<4xf64>} : tensor<4xf64>
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[W]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[W]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// INPUTS-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf64>, tensor<4xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %w = tlir.const {value = dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf64>} : tensor<4xf64>
  %y = tlir.mul_elem %x, %w : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
