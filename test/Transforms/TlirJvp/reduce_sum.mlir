// reduce_sum: the same fold from +0 over the tangents.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.reduce_sum [[X]] axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = tlir.reduce_sum [[DX]] axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
// CHECK-NEXT:    func.return [[Y]], [[Y_1]] : tensor<2xf64>, tensor<2xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %y = tlir.reduce_sum %x axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
