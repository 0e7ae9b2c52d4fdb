// softmax: m starts at x[…, 0, …] and folds Lean's max (m <= x ? x : m) over the
// axis; e = exp(x - m); S = fold-sum of e from +0; y = e / S.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @softmax_last_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf64>)
// CHECK:         %[[FIRST:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<2x3xf64>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf64>) outs(%[[FIRST]] : tensor<2xf64>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f64, %[[M:.*]]: f64):
// CHECK-NEXT:      %[[LE:.*]] = arith.cmpf ole, %[[M]], %[[V]] : f64
// CHECK-NEXT:      %[[NM:.*]] = arith.select %[[LE]], %[[V]], %[[M]] : f64
// CHECK-NEXT:      linalg.yield %[[NM]] : f64
// CHECK:         %[[EXP:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x3xf64>, tensor<2xf64>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %[[B:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f64
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f64
// CHECK-NEXT:      linalg.yield %[[E]] : f64
// CHECK:         %[[ZEROS:.*]] = linalg.fill
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x3xf64>) outs(%[[ZEROS]] : tensor<2xf64>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[EXP]], %[[SUM]] : tensor<2x3xf64>, tensor<2xf64>)
// CHECK-NEXT:    ^bb0(%[[N:.*]]: f64, %[[T:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[N]], %[[T]] : f64
// CHECK-NEXT:      linalg.yield %[[Q]] : f64
// CHECK:         func.return %[[R]]
func.func @softmax_last_axis(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = tlir.softmax %x axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %0 : tensor<2x3xf64>
}

// -----

// Axis 0 of three: the reduction sits at d0; the first element is x[0, d0, d1].
// CHECK-LABEL: func.func @softmax_axis0_f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]}
// CHECK:           math.exp %{{.*}} : f32
func.func @softmax_axis0_f32(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tlir.softmax %x axis = 0 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}

// -----

// A middle axis.
// CHECK-LABEL: func.func @softmax_axis1_of_3
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         iterator_types = ["parallel", "reduction", "parallel"]
func.func @softmax_axis1_of_3(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tlir.softmax %x axis = 1 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}
