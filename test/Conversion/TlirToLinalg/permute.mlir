// permute: a copying generic whose input map places output dim i at input axis
// perm[i] (torch.permute: Y[j] = X[k] with k[perm[i]] = j[i]).
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @permute_201
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[A]] : f32
// CHECK:         func.return %[[R]] : tensor<4x2x3xf32>
func.func @permute_201(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tlir.permute %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  func.return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @permute_120_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @permute_120_f64(%x: tensor<2x3x4xf64>) -> tensor<3x4x2xf64> {
  %0 = tlir.permute %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf64>) -> tensor<3x4x2xf64>
  func.return %0 : tensor<3x4x2xf64>
}

// -----

// CHECK-LABEL: func.func @permute_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
func.func @permute_scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = tlir.permute %x {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
