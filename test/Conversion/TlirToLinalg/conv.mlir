// conv: zero padding (before/after per axis), channels split into groups:
// input [lead, G, inC/G, padded...], weight [G, outC/G, G, inC/G, k...] read on its
// block diagonal (g, oc, g, l, k...); dims (lead..., g, oc, l, k..., o...): the
// reductions (l outermost, then the kernel offsets row-major) outside the output
// positions, so each output folds in the spec's order while the innermost loop
// runs along an output row; input index o·stride + k·dilation; the bias is added
// after the fold.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @conv_nchw
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x5x5xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x7x7xf32>) -> tensor<1x2x7x7xf32>
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %[[ZEROS]][0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : tensor<1x2x5x5xf32> into tensor<1x2x7x7xf32>
// CHECK-NEXT:    %[[XG:.*]] = tensor.expand_shape %[[PADDED]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 1, 2, 7, 7] : tensor<1x2x7x7xf32> into tensor<1x1x2x7x7xf32>
// CHECK-NEXT:    %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0 : i64, 1 : i64], [2 : i64, 3 : i64], [4 : i64], [5 : i64]] output_shape [1, 4, 1, 2, 3, 3] : tensor<4x2x3x3xf32> into tensor<1x4x1x2x3x3xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x4x5x5xf32>) -> tensor<1x1x4x5x5xf32>
// CHECK-NEXT:    %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d3, (d6 + d4), (d7 + d5))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d1, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6, d7)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%[[XG]], %[[WG]] : tensor<1x1x2x7x7xf32>, tensor<1x4x1x2x3x3xf32>) outs(%[[INIT]] : tensor<1x1x4x5x5xf32>)
// CHECK-NEXT:    ^bb0(%[[XV:.*]]: f32, %[[WV:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[BG:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0 : i64, 1 : i64]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK:         %[[BIASED:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]], %[[BG]] : tensor<1x1x4x5x5xf32>, tensor<1x4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[BIASED]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] : tensor<1x1x4x5x5xf32> into tensor<1x4x5x5xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x4x5x5xf32>
func.func @conv_nchw(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  func.return %0 : tensor<1x4x5x5xf32>
}

// -----

// Groups 2, stride 2, dilation (1, 2), asymmetric padding (1, 0) before, (1, 2) after.
// CHECK-LABEL: func.func @conv_groups_dilation_asymmetric
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 1, 0] [1, 4, 5, 5] [1, 1, 1, 1] : tensor<1x4x7x7xf32> to tensor<1x4x5x5xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 2, 2, 7, 7] : tensor<1x4x7x7xf32> into tensor<1x2x2x7x7xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0 : i64, 1 : i64], [2 : i64, 3 : i64], [4 : i64], [5 : i64]] output_shape [2, 3, 2, 2, 3, 3] : tensor<6x4x3x3xf32> into tensor<2x3x2x2x3x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d3, ((d6 * 2) + d4), ((d7 * 2) + (d5 * 2)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d1, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6, d7)>]
// CHECK:         tensor.collapse_shape %{{.*}} : tensor<1x2x3x3x2xf32> into tensor<1x6x3x2xf32>
func.func @conv_groups_dilation_asymmetric(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x3x2xf32> {
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0>, padding_after = array<i64: 1, 2>, dilation = array<i64: 1, 2>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 6 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x2xf32>
  func.return %0 : tensor<1x6x3x2xf32>
}

// -----

// Unbatched 1-D sample (channel axis 0), depthwise (groups = channels), f64, no padding.
// CHECK-LABEL: func.func @conv_1d_unbatched_depthwise
// CHECK-NOT:     linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<3x9xf64>)
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0 : i64, 1 : i64], [2 : i64]] output_shape [3, 1, 9] : tensor<3x9xf64> into tensor<3x1x9xf64>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, ((d4 * 2) + (d3 * 3)))>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d0, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK:         tensor.collapse_shape %{{.*}} : tensor<3x1x2xf64> into tensor<3x2xf64>
func.func @conv_1d_unbatched_depthwise(%x: tensor<3x9xf64>, %w: tensor<3x3x3xf64>, %b: tensor<3xf64>) -> tensor<3x2xf64> {
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 0>, padding_after = array<i64: 0>, dilation = array<i64: 3>, groups = 3 : i64, channel_axis = 0 : i64, in_channels = 3 : i64, out_channels = 3 : i64} : (tensor<3x9xf64>, tensor<3x3x3xf64>, tensor<3xf64>) -> tensor<3x2xf64>
  func.return %0 : tensor<3x2xf64>
}
