// broadcast_to: the tangent broadcast the same way.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<3x1xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<3x1xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[X]] : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[DX]] : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    func.return [[Y]], [[Y_1]] : tensor<2x3x4xf64>, tensor<2x3x4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<3x1xf64>) -> tensor<2x3x4xf64> {
  %y = tlir.broadcast_to %x : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
  func.return %y : tensor<2x3x4xf64>
}
