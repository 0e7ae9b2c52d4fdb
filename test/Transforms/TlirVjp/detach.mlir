// detach: nothing flows to the operand (docs/autodiff.md#d9-zero-derivatives): an unreached input gets +0.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.detach [[X]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = tlir.detach %x : (tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
