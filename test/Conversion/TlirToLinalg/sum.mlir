// sum: every axis a reduction, in row-major order (the loop order), into a
// rank-0 accumulator filled with +0.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @sum_2d
// CHECK-SAME:    (%[[X:.*]]: tensor<3x5xf64>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<f64>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f64) outs(%[[E]] : tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<3x5xf64>) outs(%[[INIT]] : tensor<f64>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         func.return %[[R]] : tensor<f64>
func.func @sum_2d(%x: tensor<3x5xf64>) -> tensor<f64> {
  %0 = tlir.sum %x : (tensor<3x5xf64>) -> tensor<f64>
  func.return %0 : tensor<f64>
}

// -----

// CHECK-LABEL: func.func @sum_scalar_f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
func.func @sum_scalar_f32(%x: tensor<f32>) -> tensor<f32> {
  %0 = tlir.sum %x : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// An empty input folds to the +0 of the fill.
// CHECK-LABEL: func.func @sum_empty
// CHECK:         linalg.fill
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%{{.*}} : tensor<0xf32>)
func.func @sum_empty(%x: tensor<0xf32>) -> tensor<f32> {
  %0 = tlir.sum %x : (tensor<0xf32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
