// const: the dense value becomes an arith.constant of the same tensor type.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @const_f32
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e-01, -2.500000e+00], [3.000000e+00, 7.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x2xf32>
func.func @const_f32() -> tensor<2x2xf32> {
  %0 = tlir.const {value = dense<[[0.1, -2.5], [3.0, 7.0]]> : tensor<2x2xf32>} : tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @const_scalar_f64
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<0.33333333333333331> : tensor<f64>
// CHECK-NEXT:    func.return %[[C]] : tensor<f64>
func.func @const_scalar_f64() -> tensor<f64> {
  %0 = tlir.const {value = dense<0.3333333333333333> : tensor<f64>} : tensor<f64>
  func.return %0 : tensor<f64>
}
