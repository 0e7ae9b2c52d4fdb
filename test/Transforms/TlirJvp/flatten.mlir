// flatten: the tangent flattened the same way.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<6xf64>, tensor<6xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.flatten [[X]] : (tensor<2x3xf64>) -> tensor<6xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = tlir.flatten [[DX]] : (tensor<2x3xf64>) -> tensor<6xf64>
// CHECK-NEXT:    func.return [[Y]], [[Y_1]] : tensor<6xf64>, tensor<6xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<6xf64> {
  %y = tlir.flatten %x : (tensor<2x3xf64>) -> tensor<6xf64>
  func.return %y : tensor<6xf64>
}
