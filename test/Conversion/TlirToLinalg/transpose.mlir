// transpose: the permutation exchanging axis1 and axis2, as a copying generic.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @transpose_02
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x3x2xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x3x2xf32>)
func.func @transpose_02(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = tlir.transpose %x {axis1 = 0 : i64, axis2 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  func.return %0 : tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_last_two_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @transpose_last_two_f64(%x: tensor<2x3x4xf64>) -> tensor<2x4x3xf64> {
  %0 = tlir.transpose %x {axis1 = 1 : i64, axis2 = 2 : i64} : (tensor<2x3x4xf64>) -> tensor<2x4x3xf64>
  func.return %0 : tensor<2x4x3xf64>
}

// -----

// Equal axes: the identity permutation.
// CHECK-LABEL: func.func @transpose_same_axis
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @transpose_same_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tlir.transpose %x {axis1 = 1 : i64, axis2 = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
