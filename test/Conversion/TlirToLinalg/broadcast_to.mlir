// broadcast_to: right-aligned; leading target axes are dropped from the input
// map and a size-1 source axis that expands reads index 0.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @broadcast_3x1_to_2x3x5
// CHECK-SAME:    (%[[X:.*]]: tensor<3x1xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3x5xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<3x1xf32>) outs(%[[INIT]] : tensor<2x3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[A]] : f32
func.func @broadcast_3x1_to_2x3x5(%x: tensor<3x1xf32>) -> tensor<2x3x5xf32> {
  %0 = tlir.broadcast_to %x : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}

// -----

// A size-1 axis that stays size 1 keeps its dimension.
// CHECK-LABEL: func.func @broadcast_1x4_to_1x4_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @broadcast_1x4_to_1x4_f64(%x: tensor<1x4xf64>) -> tensor<3x1x4xf64> {
  %0 = tlir.broadcast_to %x : (tensor<1x4xf64>) -> tensor<3x1x4xf64>
  func.return %0 : tensor<3x1x4xf64>
}

// -----

// CHECK-LABEL: func.func @broadcast_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
func.func @broadcast_scalar(%x: tensor<f32>) -> tensor<2x2xf32> {
  %0 = tlir.broadcast_to %x : (tensor<f32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

// A result with no elements needs no computation.
// CHECK-LABEL: func.func @broadcast_to_empty
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<0x4xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<0x4xf32>
func.func @broadcast_to_empty(%x: tensor<1x4xf32>) -> tensor<0x4xf32> {
  %0 = tlir.broadcast_to %x : (tensor<1x4xf32>) -> tensor<0x4xf32>
  func.return %0 : tensor<0x4xf32>
}
