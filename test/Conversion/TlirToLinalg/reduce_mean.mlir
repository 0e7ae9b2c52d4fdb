// reduce_mean: the fold-sum, then a division by (n : α), the axis extent
// rounded once to the carrier.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @reduce_mean_axis1
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[SUM]] : tensor<2x4xf32>) outs(%[[E]] : tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         func.return %[[R]]
func.func @reduce_mean_axis1(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = tlir.reduce_mean %x axis = 1 : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean_axis0_f64
// CHECK:         iterator_types = ["reduction", "parallel"]
// CHECK:         arith.constant 7.000000e+00 : f64
func.func @reduce_mean_axis0_f64(%x: tensor<7x2xf64>) -> tensor<2xf64> {
  %0 = tlir.reduce_mean %x axis = 0 : (tensor<7x2xf64>) -> tensor<2xf64>
  func.return %0 : tensor<2xf64>
}
