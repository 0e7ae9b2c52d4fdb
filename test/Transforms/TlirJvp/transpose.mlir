// transpose: the same transposition of the tangent.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[X]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[DX]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK-NEXT:    func.return [[Y]], [[Y_1]] : tensor<3x2xf64>, tensor<3x2xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %y = tlir.transpose %x {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x3xf64>) -> tensor<3x2xf64>
  func.return %y : tensor<3x2xf64>
}
