// conv: per output, a fold from +0 over the group's input channels, then kernel cells, of ((dx·w)
// + (x·dw)) on the zero-padded input, then + db.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>) -> (tensor<1x2x2x3xf64>, tensor<1x2x2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.conv [[X]], [[W]], [[B]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DX]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<1x2x1x2x3xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V1]], [[W]], [[DW]]) init([[V3]]) {bounds = array<i64: 1, 2, 1, 2, 3, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 * 2) + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 * 2) + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ((d1 + d2), (d1 + d5), d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ((d1 + d2), (d1 + d5), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>, tensor<2x2x2x2xf64>, tensor<2x2x2x2xf64>), (tensor<1x2x1x2x3xf64>) -> tensor<1x2x1x2x3xf64> {
// CHECK-NEXT:    ^bb0([[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V6]], [[V7]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V5]], [[V8]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V10]], [[V11]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V12]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V13]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V14]] : (tensor<f64>) -> tensor<1x2x1x2x3xf64>
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V4]], [[DB]]) init([[V15]]) {bounds = array<i64: 1, 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ((d1 + d2))>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<1x2x1x2x3xf64>, tensor<2xf64>), (tensor<1x2x1x2x3xf64>) -> tensor<1x2x1x2x3xf64> {
// CHECK-NEXT:    ^bb0([[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V17]], [[V18]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V20]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V16]] : (tensor<1x2x1x2x3xf64>) -> tensor<1x2x2x3xf64>
// CHECK-NEXT:    func.return [[Y]], [[V21]] : tensor<1x2x2x3xf64>, tensor<1x2x2x3xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>) -> (tensor<1x2x2x3xf64>, tensor<1x2x2x3xf64>) {
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.conv [[X]], [[W]], [[B]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// PARAMS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DX]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// PARAMS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<1x2x1x2x3xf64>
// PARAMS-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V1]], [[W]], [[DW]]) init([[V3]]) {bounds = array<i64: 1, 2, 1, 2, 3, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 * 2) + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 * 2) + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ((d1 + d2), (d1 + d5), d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ((d1 + d2), (d1 + d5), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>, tensor<2x2x2x2xf64>, tensor<2x2x2x2xf64>), (tensor<1x2x1x2x3xf64>) -> tensor<1x2x1x2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V6]], [[V7]] : f64
// PARAMS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V5]], [[V8]] : f64
// PARAMS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V10]], [[V11]] : f64
// PARAMS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V12]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V13]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// PARAMS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V14]] : (tensor<f64>) -> tensor<1x2x1x2x3xf64>
// PARAMS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V4]], [[DB]]) init([[V15]]) {bounds = array<i64: 1, 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ((d1 + d2))>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<1x2x1x2x3xf64>, tensor<2xf64>), (tensor<1x2x1x2x3xf64>) -> tensor<1x2x1x2x3xf64> {
// PARAMS-NEXT:    ^bb0([[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V17]], [[V18]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V20]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V16]] : (tensor<1x2x1x2x3xf64>) -> tensor<1x2x2x3xf64>
// PARAMS-NEXT:    func.return [[Y]], [[V21]] : tensor<1x2x2x3xf64>, tensor<1x2x2x3xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<1x2x3x3xf64>, %w: tensor<2x2x2x2xf64>, %b: tensor<2xf64>) -> tensor<1x2x2x3xf64> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
  func.return %y : tensor<1x2x2x3xf64>
}
