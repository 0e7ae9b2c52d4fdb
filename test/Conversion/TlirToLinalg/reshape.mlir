// reshape: a row-major reinterpretation; collapse to one axis, expand to the
// target. One-element tensors to or from rank 0 read the element directly.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @reshape_2x3x4_to_4x6
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0 : i64, 1 : i64, 2 : i64]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0 : i64, 1 : i64]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x6xf32>
func.func @reshape_2x3x4_to_4x6(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = tlir.reshape %x : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  func.return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_to_1d_f64
// CHECK-NEXT:    %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0 : i64, 1 : i64]] : tensor<2x3xf64> into tensor<6xf64>
// CHECK-NEXT:    func.return %[[F]] : tensor<6xf64>
func.func @reshape_to_1d_f64(%x: tensor<2x3xf64>) -> tensor<6xf64> {
  %0 = tlir.reshape %x : (tensor<2x3xf64>) -> tensor<6xf64>
  func.return %0 : tensor<6xf64>
}

// -----

// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> (0, 0)>, affine_map<() -> ()>], iterator_types = []}
func.func @reshape_to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %0 = tlir.reshape %x : (tensor<1x1xf32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @reshape_from_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @reshape_from_scalar(%x: tensor<f32>) -> tensor<1x1x1xf32> {
  %0 = tlir.reshape %x : (tensor<f32>) -> tensor<1x1x1xf32>
  func.return %0 : tensor<1x1x1xf32>
}
