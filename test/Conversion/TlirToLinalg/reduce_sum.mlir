// reduce_sum: a fold from +0 (linalg.fill of 0) over the axis, marked
// "reduction"; the accumulator is the left operand: acc = acc + x.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @reduce_sum_axis0
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3x4xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         func.return %[[R]] : tensor<3x4xf32>
func.func @reduce_sum_axis0(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  %0 = tlir.reduce_sum %x axis = 0 : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_axis1_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f64
func.func @reduce_sum_axis1_f64(%x: tensor<2x3x4xf64>) -> tensor<2x4xf64> {
  %0 = tlir.reduce_sum %x axis = 1 : (tensor<2x3x4xf64>) -> tensor<2x4xf64>
  func.return %0 : tensor<2x4xf64>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_axis2
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
func.func @reduce_sum_axis2(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %0 = tlir.reduce_sum %x axis = 2 : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_to_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
func.func @reduce_sum_to_scalar(%x: tensor<5xf32>) -> tensor<f32> {
  %0 = tlir.reduce_sum %x axis = 0 : (tensor<5xf32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
