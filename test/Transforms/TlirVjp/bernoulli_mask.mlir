// bernoulli_mask: the keep probability gets nothing (docs/autodiff.md#d9-zero-derivatives): its gradient is +0.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[P:%[a-zA-Z0-9_.$-]+]]: tensor<f64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<f64>) {
// CHECK-NEXT:    [[M:%[a-zA-Z0-9_.$-]+]] = tlir.bernoulli_mask [[P]] {seed = 7 : i64, node_id = 1 : i64} : (tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[M]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[M]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    func.return [[Y]], [[V0]], [[V1]] : tensor<4xf64>, tensor<4xf64>, tensor<f64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[P:%[a-zA-Z0-9_.$-]+]]: tensor<f64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<f64>) {
// INPUTS-NEXT:    [[M:%[a-zA-Z0-9_.$-]+]] = tlir.bernoulli_mask [[P]] {seed = 7 : i64, node_id = 1 : i64} : (tensor<f64>) -> tensor<4xf64>
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[M]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[M]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    func.return [[Y]], [[V0]], [[V1]] : tensor<4xf64>, tensor<4xf64>, tensor<f64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<4xf64>, %p: tensor<f64>) -> tensor<4xf64> {
  %m = tlir.bernoulli_mask %p {seed = 7 : i64, node_id = 1 : i64} : (tensor<f64>) -> tensor<4xf64>
  %y = tlir.mul_elem %x, %m : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
