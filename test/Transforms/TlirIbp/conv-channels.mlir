// conv whose group has at least as many output channels (4) as the last output
// axis has positions (2): the weight is permuted once to [in channel, kernel,
// out channel], the fold runs over (n, group, out, local in channel, kernel, out
// channel) so that its innermost dimension is the output channel (contiguous
// weight, one input value for the whole vector). With one group the bias is
// added in that layout (read along the vector, the sums updated in place) and
// the boxes are then permuted back to [n, out channel, out]. Each output takes
// its terms in the same order (local in channel, then kernel cells) as with the
// output positions innermost.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK:         [[WT:%[a-zA-Z0-9_.$-]+]] = tlir.permute %w {perm = array<i64: 1, 2, 0>} : (tensor<4x1x2xf64>) -> tensor<1x2x4xf64>
// CHECK:         [[LO:%[a-zA-Z0-9_.$-]+]], [[HI:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins(%x_lo, %x_hi, [[WT]])
// CHECK-SAME:      bounds = array<i64: 1, 1, 2, 1, 2, 4>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, (d1 + d3), (d2 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, (d1 + d3), (d2 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5) -> ((d1 + d3), d4, ((d1 * 4) + d5))>]
// CHECK-SAME:      iterators = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK:         [[LO3:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[LO]] : (tensor<1x1x2x4xf64>) -> tensor<1x2x4xf64>
// CHECK-NEXT:    [[HI3:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[HI]] : (tensor<1x1x2x4xf64>) -> tensor<1x2x4xf64>
// CHECK-NEXT:    [[BLO:%[a-zA-Z0-9_.$-]+]], [[BHI:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins(%b) init([[LO3]], [[HI3]])
// CHECK-SAME:      bounds = array<i64: 1, 2, 4>, maps = [affine_map<(d0, d1, d2) -> (d2)>]
// CHECK:         tlir.permute [[BLO]] {perm = array<i64: 0, 2, 1>} : (tensor<1x2x4xf64>) -> tensor<1x4x2xf64>
// CHECK-NEXT:    tlir.permute [[BHI]] {perm = array<i64: 0, 2, 1>} : (tensor<1x2x4xf64>) -> tensor<1x4x2xf64>

func.func @main(%x: tensor<1x1x3xf64>) -> tensor<1x4x2xf64> {
  %w = tlir.const {value = dense<[[[1.0, -1.0]], [[0.5, 0.0]], [[-2.0, 3.0]], [[0.25, 4.0]]]> : tensor<4x1x2xf64>} : tensor<4x1x2xf64>
  %b = tlir.const {value = dense<[0.0, 1.0, -1.0, 0.5]> : tensor<4xf64>} : tensor<4xf64>
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 0>, padding_after = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 1 : i64, out_channels = 4 : i64} : (tensor<1x1x3xf64>, tensor<4x1x2xf64>, tensor<4xf64>) -> tensor<1x4x2xf64>
  func.return %y : tensor<1x4x2xf64>
}
