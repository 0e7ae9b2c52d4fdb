// detach: the forward identity; uses read the operand itself.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @detach
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[I:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[X]] : tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[I]] : tensor<2x3xf32>)
// CHECK:         func.return %[[X]], %[[R]] : tensor<2x3xf32>, tensor<2x3xf32>
func.func @detach(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tlir.detach %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tlir.add %0, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @detach_scalar
// CHECK-SAME:    (%[[X:.*]]: tensor<f64>)
// CHECK-NEXT:    func.return %[[X]] : tensor<f64>
func.func @detach_scalar(%x: tensor<f64>) -> tensor<f64> {
  %0 = tlir.detach %x : (tensor<f64>) -> tensor<f64>
  func.return %0 : tensor<f64>
}
