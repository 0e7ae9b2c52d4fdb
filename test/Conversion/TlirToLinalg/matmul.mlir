// matmul: dims (batch..., i?, k, j?) with k the only reduction, placed outside j
// so the innermost loop runs along rows of B and Y; each output still adds its
// terms A·B in ascending k from +0. A broadcast batch axis of extent 1 reads 0.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         func.return %[[R]]
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = tlir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// Batch broadcasting: [5, 1] against [7] gives [5, 7]; A's size-1 axis reads 0.
// CHECK-LABEL: func.func @matmul_batch_broadcast_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
func.func @matmul_batch_broadcast_f64(%a: tensor<5x1x2x3xf64>, %b: tensor<7x3x4xf64>) -> tensor<5x7x2x4xf64> {
  %0 = tlir.matmul %a, %b : (tensor<5x1x2x3xf64>, tensor<7x3x4xf64>) -> tensor<5x7x2x4xf64>
  func.return %0 : tensor<5x7x2x4xf64>
}

// -----

// Vector times batched matrix: A is a row, its axis removed.
// CHECK-LABEL: func.func @matmul_vector_matrix
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @matmul_vector_matrix(%a: tensor<3xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = tlir.matmul %a, %b : (tensor<3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// Matrix times vector.
// CHECK-LABEL: func.func @matmul_matrix_vector
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
func.func @matmul_matrix_vector(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = tlir.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// Dot product into a scalar.
// CHECK-LABEL: func.func @matmul_dot
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
func.func @matmul_dot(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
  %0 = tlir.matmul %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<f64>
  func.return %0 : tensor<f64>
}
