// conv: the input padded with zeros; one fold over (n, group, out channel, local in
// channel, kernel, out) reading the dense block-diagonal weight at
// [g·cout + oc, g·cin + lc, k]; a [kernel, out] table marks the cells in the padding
// before the input, whose terms are skipped (the padding after adds zero terms).
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x4xf64>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x4xf64>) -> (tensor<1x2x4xf64>, tensor<1x2x4xf64>, tensor<f64>) {
// CHECK-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}[1.000000e+00, -1.000000e+00, 5.000000e-01], [0.000000e+00, 0.000000e+00, 0.000000e+00]], {{\[\[}}0.000000e+00, 0.000000e+00, 0.000000e+00], [2.000000e+00, 0.000000e+00, -3.000000e+00]]]> : tensor<2x2x3xf64>} : tensor<2x2x3xf64>
// CHECK-NEXT:    [[B:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[2.500000e-01, -5.000000e-01]> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X_LO]] {low = array<i64: 0, 0, 1>, high = array<i64: 0, 0, 1>, interior = array<i64: 0, 0, 0>} : (tensor<1x2x4xf64>) -> tensor<1x2x6xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X_HI]] {low = array<i64: 0, 0, 1>, high = array<i64: 0, 0, 1>, interior = array<i64: 0, 0, 0>} : (tensor<1x2x4xf64>) -> tensor<1x2x6xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x4xf64>} : tensor<3x4xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<4xf64>) -> tensor<1x2x1x4xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<4xf64>) -> tensor<1x2x1x4xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]], [[V7:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V1]], [[W]], [[V2]]) init([[V4]], [[V5]]) {bounds = array<i64: 1, 2, 1, 1, 3, 4>, maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, (d1 + d3), (d5 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, (d1 + d3), (d5 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5) -> ((d1 + d2), (d1 + d3), d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>], iterators = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} : (tensor<1x2x6xf64>, tensor<1x2x6xf64>, tensor<2x2x3xf64>, tensor<3x4xf64>), (tensor<1x2x1x4xf64>, tensor<1x2x1x4xf64>) -> tensor<1x2x1x4xf64>, tensor<1x2x1x4xf64> {
// CHECK-NEXT:    ^bb0([[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V8]], [[V10]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V9]], [[V10]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.select [[V16]], [[V15]], [[V14]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V17]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.select [[V19]], [[V14]], [[V15]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V20]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V12]], [[V18]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V22]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V13]], [[V21]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V24]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V11]], [[V26]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.select [[V27]], [[V12]], [[V23]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.select [[V27]], [[V13]], [[V25]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V28]], [[V29]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V6]] : (tensor<1x2x1x4xf64>) -> tensor<1x2x4xf64>
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V7]] : (tensor<1x2x1x4xf64>) -> tensor<1x2x4xf64>
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]], [[V33:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[B]]) init([[V30]], [[V31]]) {bounds = array<i64: 1, 2, 4>, maps = [affine_map<(d0, d1, d2) -> (d1)>], iterators = ["parallel", "parallel", "parallel"]} : (tensor<2xf64>), (tensor<1x2x4xf64>, tensor<1x2x4xf64>) -> tensor<1x2x4xf64>, tensor<1x2x4xf64> {
// CHECK-NEXT:    ^bb0([[V34:%[a-zA-Z0-9_.$-]+]]: f64, [[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V35]], [[V34]] : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V37]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V36]], [[V34]] : f64
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V39]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V38]], [[V40]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7ff0000000000000> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    func.return [[V32]], [[V33]], [[V41]] : tensor<1x2x4xf64>, tensor<1x2x4xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<1x2x4xf64>) -> tensor<1x2x4xf64> {
  %w = tlir.const {value = dense<[[[1.0, -1.0, 0.5], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [2.0, 0.0, -3.0]]]> : tensor<2x2x3xf64>} : tensor<2x2x3xf64>
  %b = tlir.const {value = dense<[0.25, -0.5]> : tensor<2xf64>} : tensor<2xf64>
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>, padding_after = array<i64: 1>, dilation = array<i64: 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x4xf64>, tensor<2x2x3xf64>, tensor<2xf64>) -> tensor<1x2x4xf64>
  func.return %y : tensor<1x2x4xf64>
}
