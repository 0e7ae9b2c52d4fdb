// concat: the tangents concatenated the same way.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x1xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2x2xf64>, [[DA:%[a-zA-Z0-9_.$-]+]]: tensor<2x1xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<2x2xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.concat [[A]], [[B]] axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = tlir.concat [[DA]], [[DB]] axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    func.return [[Y]], [[Y_1]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x1xf64>, %b: tensor<2x2xf64>) -> tensor<2x3xf64> {
  %y = tlir.concat %a, %b axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
