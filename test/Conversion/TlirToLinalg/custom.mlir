// custom: a func.call of the module's function `callee`.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @custom
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>, %[[S:.*]]: tensor<f64>)
// CHECK-NEXT:    %[[R:.*]] = func.call @kernel(%[[X]], %[[S]]) : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf64>
// CHECK-LABEL: func.func @kernel
// CHECK-NOT:     tlir.
func.func @custom(%x: tensor<4xf64>, %s: tensor<f64>) -> tensor<4xf64> {
  %0 = tlir.custom @kernel(%x, %s) {name = "scale by s"} : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}
func.func @kernel(%x: tensor<4xf64>, %s: tensor<f64>) -> tensor<4xf64> {
  %0 = tlir.relu %x : (tensor<4xf64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}
