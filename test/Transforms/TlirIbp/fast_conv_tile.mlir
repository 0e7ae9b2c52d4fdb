// The fast path's conv with one vector of output channels (8 in f64) and 36 terms per
// output (4 input channels × 3×3 cells): the fold runs a register tile of 2 positions of
// the last output axis after the kernel cells, [n, g, oh, ow tile, lc, kh, kw, p, oc]
// (LLVM unrolls p: each position's sums stay in registers). The input and the cell
// table read position ow tile · 2 + p; the result [n, g, oh, ow tile, p, oc] is
// [n, oh, ow, oc] as it lies in memory.
// RUN: tlir-opt %s -p 'tlir-ibp{fast=true}' | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK:         tlir_ad.fold ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) init
// CHECK-SAME:      bounds = array<i64: 2, 1, 8, 4, 4, 3, 3, 2, 8>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, ((d1 * 4) + d4), (d2 + d5), (((d3 * 2) + d7) + d6))>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (((d1 * 4) + d4), d5, d6, ((d1 * 8) + d8))>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d5, d6, d2, ((d3 * 2) + d7))>
// CHECK-SAME:      iterators = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
// CHECK:         tlir.reshape %{{.*}} : (tensor<2x1x8x4x2x8xf64>) -> tensor<2x8x8x8xf64>
func.func @main(%x: tensor<2x4x8x8xf64>) -> tensor<2x8x8x8xf64> {
  %w = tlir.const {value = dense<0.5> : tensor<8x4x3x3xf64>} : tensor<8x4x3x3xf64>
  %b = tlir.const {value = dense<0.25> : tensor<8xf64>} : tensor<8xf64>
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 8 : i64} : (tensor<2x4x8x8xf64>, tensor<8x4x3x3xf64>, tensor<8xf64>) -> tensor<2x8x8x8xf64>
  func.return %y : tensor<2x8x8x8xf64>
}
