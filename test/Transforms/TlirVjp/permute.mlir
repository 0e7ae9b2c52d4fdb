// permute: the inverse permutation of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4x2x3xf64>) -> (tensor<4x2x3xf64>, tensor<2x3x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[DY0]] {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4x2x3xf64>, tensor<2x3x4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3x4xf64>) -> tensor<4x2x3xf64> {
  %y = tlir.permute %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
  func.return %y : tensor<4x2x3xf64>
}
