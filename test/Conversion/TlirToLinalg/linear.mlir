// linear: W [out, in] is copied to Wᵀ [in, out]; dims (lead..., i, o) with the
// reduction i outside o (the innermost loop runs along contiguous rows; each
// output still adds W[o,i]·x[i] in ascending i, from +0); then a third generic
// adds the bias after the fold.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @linear_2d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[TE:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT:    %[[WT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[W]] : tensor<3x4xf32>) outs(%[[TE]] : tensor<4x3xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[WT]] : tensor<2x4xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[XV:.*]]: f32, %[[WV:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[WV]], %[[XV]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[ACC]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[Y:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[YB:.*]] = arith.addf %[[Y]], %[[BV]] : f32
// CHECK-NEXT:      linalg.yield %[[YB]] : f32
// CHECK:         func.return %[[R]]
func.func @linear_2d(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tlir.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @linear_vector_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
func.func @linear_vector_f64(%x: tensor<4xf64>, %w: tensor<5x4xf64>, %b: tensor<5xf64>) -> tensor<5xf64> {
  %0 = tlir.linear %x, %w, %b : (tensor<4xf64>, tensor<5x4xf64>, tensor<5xf64>) -> tensor<5xf64>
  func.return %0 : tensor<5xf64>
}

// -----

// CHECK-LABEL: func.func @linear_3d
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
func.func @linear_3d(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %0 = tlir.linear %x, %w, %b : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}
