// mul_elem: g·b to a, g·a to b.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[A]], [[B]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[B]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[DY0]], [[A]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return [[Y]], [[V0]], [[V1]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }

func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = tlir.mul_elem %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
