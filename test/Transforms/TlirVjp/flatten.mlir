// flatten: g reshaped back.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<6xf64>) -> (tensor<6xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.flatten [[X]] : (tensor<2x3xf64>) -> tensor<6xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[DY0]] : (tensor<6xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<6xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<6xf64> {
  %y = tlir.flatten %x : (tensor<2x3xf64>) -> tensor<6xf64>
  func.return %y : tensor<6xf64>
}
