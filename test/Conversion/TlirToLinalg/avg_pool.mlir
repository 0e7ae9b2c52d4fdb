// avg_pool: dims (lead..., o..., k...) with the window innermost and row-major;
// a shape-only window operand gives the k dims their range; padding is +0 and
// counted in the divisor, which is always the kernel volume.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @avg_pool_no_padding
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x4xf64>)
// CHECK-NEXT:    %[[WIN:.*]] = tensor.empty() : tensor<2x2xf64>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<2x2x2xf64>) -> tensor<2x2x2xf64>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, ((d1 * 2) + d3), ((d2 * 2) + d4))>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[WIN]] : tensor<2x4x4xf64>, tensor<2x2xf64>) outs(%[[INIT]] : tensor<2x2x2xf64>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f64, %{{.*}}: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         arith.constant 4.000000e+00 : f64
// CHECK-NEXT:    arith.divf
func.func @avg_pool_no_padding(%x: tensor<2x4x4xf64>) -> tensor<2x2x2xf64> {
  %0 = tlir.avg_pool %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x4x4xf64>) -> tensor<2x2x2xf64>
  func.return %0 : tensor<2x2x2xf64>
}

// -----

// Padding 1 on both sides of both spatial axes; the divisor stays 9.
// CHECK-LABEL: func.func @avg_pool_padded
// CHECK-SAME:    (%[[X:.*]]: tensor<1x5x5xf32>)
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x7x7xf32>) -> tensor<1x7x7xf32>
// CHECK-NEXT:    %[[IN:.*]] = tensor.extract_slice %[[ZEROS]][0, 1, 1] [1, 5, 5] [1, 1, 1] : tensor<1x7x7xf32> to tensor<1x5x5xf32>
// CHECK-NEXT:    %[[COPY:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x5x5xf32>) outs(%[[IN]] : tensor<1x5x5xf32>)
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[COPY]] into %[[ZEROS]][0, 1, 1] [1, 5, 5] [1, 1, 1] : tensor<1x5x5xf32> into tensor<1x7x7xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, ((d1 * 2) + d3), (d2 + d4))>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PADDED]], %{{.*}} : tensor<1x7x7xf32>, tensor<3x3xf32>)
// CHECK:         arith.constant 9.000000e+00 : f32
func.func @avg_pool_padded(%x: tensor<1x5x5xf32>) -> tensor<1x3x5xf32> {
  %0 = tlir.avg_pool %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 1>, padding = array<i64: 1, 1>} : (tensor<1x5x5xf32>) -> tensor<1x3x5xf32>
  func.return %0 : tensor<1x3x5xf32>
}

// -----

// Three spatial axes and a leading axis.
// CHECK-LABEL: func.func @avg_pool_3d
// CHECK:         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK:         arith.constant 8.000000e+00 : f32
func.func @avg_pool_3d(%x: tensor<2x3x3x3xf32>) -> tensor<2x2x2x2xf32> {
  %0 = tlir.avg_pool %x {kernel = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>} : (tensor<2x3x3x3xf32>) -> tensor<2x2x2x2xf32>
  func.return %0 : tensor<2x2x2x2xf32>
}

// -----

// The zero-extent quirk (docs/ops.md#max_pool): an empty result, nothing computed.
// CHECK-LABEL: func.func @avg_pool_window_does_not_fit
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<0xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<0xf32>
func.func @avg_pool_window_does_not_fit(%x: tensor<5xf32>) -> tensor<0xf32> {
  %0 = tlir.avg_pool %x {kernel = array<i64: 7>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<5xf32>) -> tensor<0xf32>
  func.return %0 : tensor<0xf32>
}
