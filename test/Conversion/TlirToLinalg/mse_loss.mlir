// mse_loss: fold-sum of (a - b)·(a - b) in row-major order from +0, divided by
// the element count (1 for an empty tensor).
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @mse_f64
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf64>, %[[Y:.*]]: tensor<2x3xf64>)
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%[[X]], %[[Y]] : tensor<2x3xf64>, tensor<2x3xf64>) outs(%[[INIT]] : tensor<f64>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %[[B:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f64
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[SQ]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         arith.constant 6.000000e+00 : f64
// CHECK-NEXT:    arith.divf
func.func @mse_f64(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<f64> {
  %0 = tlir.mse_loss %x, %y : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
  func.return %0 : tensor<f64>
}

// -----

// CHECK-LABEL: func.func @mse_empty_f32
// CHECK:         iterator_types = ["reduction", "reduction"]
// CHECK:         arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    arith.divf
func.func @mse_empty_f32(%x: tensor<0x3xf32>, %y: tensor<0x3xf32>) -> tensor<f32> {
  %0 = tlir.mse_loss %x, %y : (tensor<0x3xf32>, tensor<0x3xf32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
