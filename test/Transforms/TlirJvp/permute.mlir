// permute: the same permutation of the tangent.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf64>) -> (tensor<4x2x3xf64>, tensor<4x2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[DX]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
// CHECK-NEXT:    func.return [[Y]], [[Y_1]] : tensor<4x2x3xf64>, tensor<4x2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3x4xf64>) -> tensor<4x2x3xf64> {
  %y = tlir.permute %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
  func.return %y : tensor<4x2x3xf64>
}
