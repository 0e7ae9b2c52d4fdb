// flatten: everything, batch axis included, into one axis.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @flatten_2x3x4
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0 : i64, 1 : i64, 2 : i64]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    func.return %[[F]] : tensor<24xf32>
func.func @flatten_2x3x4(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = tlir.flatten %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  func.return %0 : tensor<24xf32>
}

// -----

// Already one axis: nothing to do.
// CHECK-LABEL: func.func @flatten_1d_f64
// CHECK-SAME:    (%[[X:.*]]: tensor<5xf64>)
// CHECK-NEXT:    func.return %[[X]] : tensor<5xf64>
func.func @flatten_1d_f64(%x: tensor<5xf64>) -> tensor<5xf64> {
  %0 = tlir.flatten %x : (tensor<5xf64>) -> tensor<5xf64>
  func.return %0 : tensor<5xf64>
}

// -----

// CHECK-LABEL: func.func @flatten_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
func.func @flatten_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  %0 = tlir.flatten %x : (tensor<f32>) -> tensor<1xf32>
  func.return %0 : tensor<1xf32>
}
