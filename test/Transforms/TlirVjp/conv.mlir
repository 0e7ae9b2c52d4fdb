// conv: docs/autodiff.md#d6-conv-vjp: dx at i = fold over the group's output channels, then kernel cells, of g·K where
// o·stride + k·dilation - pad = i (g spread onto the input grid); dK = fold over leading then
// output positions of x_pad·g (+0 off the group blocks); db = fold of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x2x3xf64>) -> (tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.conv [[X]], [[W]], [[B]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DY0]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 0>, interior = array<i64: 0, 0, 1, 0>} : (tensor<1x2x2x3xf64>) -> tensor<1x2x5x4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<1x2x2x3xf64>} : tensor<1x2x2x3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V1]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 0>, interior = array<i64: 0, 0, 1, 0>} : (tensor<1x2x2x3xf64>) -> tensor<1x2x5x4xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<1x2x1x3x3xf64>} : tensor<1x2x1x3x3xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V2]], [[W]]) init([[V3]]) {bounds = array<i64: 1, 2, 1, 3, 3, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 + 2) + (d6 * -1)), ((d4 + 1) + (d7 * -1)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 + 2) + (d6 * -1)), ((d4 + 1) + (d7 * -1)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ((d1 + d5), (d1 + d2), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x5x4xf64>, tensor<1x2x5x4xf64>, tensor<2x2x2x2xf64>), (tensor<1x2x1x3x3xf64>) -> tensor<1x2x1x3x3xf64> {
// CHECK-NEXT:    ^bb0([[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V6]], [[V9]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V5]], [[V7]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V11]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V10]], [[V12]], [[V8]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V13]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V4]] : (tensor<1x2x1x3x3xf64>) -> tensor<1x2x3x3xf64>
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x1x1x2x2xf64>} : tensor<2x1x1x2x2xf64>
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V15]], [[DY0]]) init([[V16]]) {bounds = array<i64: 2, 1, 1, 2, 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d2), ((d6 * 2) + d3), (d7 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d1), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x4x4xf64>, tensor<1x2x2x3xf64>), (tensor<2x1x1x2x2xf64>) -> tensor<2x1x1x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V19]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V20]], [[V21]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V22]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x1x2x1x2x2xf64>} : tensor<2x1x2x1x2x2xf64>
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V17]], [[V23]]) init([[V24]]) {bounds = array<i64: 2, 1, 2, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x1x1x2x2xf64>, tensor<2x2xf64>), (tensor<2x1x2x1x2x2xf64>) -> tensor<2x1x2x1x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V26:%[a-zA-Z0-9_.$-]+]]: f64, [[V27:%[a-zA-Z0-9_.$-]+]]: f64, [[V28:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V27]], [[V29]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.select [[V30]], [[V26]], [[V31]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V32]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V25]] : (tensor<2x1x2x1x2x2xf64>) -> tensor<2x2x2x2xf64>
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V34]]) {bounds = array<i64: 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>], iterators = ["parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V37]], [[V36]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V38]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V14]], [[V33]], [[V35]] : tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x2x3xf64>) -> (tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.conv [[X]], [[W]], [[B]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DY0]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 0>, interior = array<i64: 0, 0, 1, 0>} : (tensor<1x2x2x3xf64>) -> tensor<1x2x5x4xf64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<1x2x2x3xf64>} : tensor<1x2x2x3xf64>
// INPUTS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V1]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 0>, interior = array<i64: 0, 0, 1, 0>} : (tensor<1x2x2x3xf64>) -> tensor<1x2x5x4xf64>
// INPUTS-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<1x2x1x3x3xf64>} : tensor<1x2x1x3x3xf64>
// INPUTS-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V2]], [[W]]) init([[V3]]) {bounds = array<i64: 1, 2, 1, 3, 3, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 + 2) + (d6 * -1)), ((d4 + 1) + (d7 * -1)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d5), ((d3 + 2) + (d6 * -1)), ((d4 + 1) + (d7 * -1)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ((d1 + d5), (d1 + d2), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x5x4xf64>, tensor<1x2x5x4xf64>, tensor<2x2x2x2xf64>), (tensor<1x2x1x3x3xf64>) -> tensor<1x2x1x3x3xf64> {
// INPUTS-NEXT:    ^bb0([[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V6]], [[V9]] : f64
// INPUTS-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V5]], [[V7]] : f64
// INPUTS-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V11]] : f64
// INPUTS-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V10]], [[V12]], [[V8]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V13]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V4]] : (tensor<1x2x1x3x3xf64>) -> tensor<1x2x3x3xf64>
// INPUTS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// INPUTS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x1x1x2x2xf64>} : tensor<2x1x1x2x2xf64>
// INPUTS-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V15]], [[DY0]]) init([[V16]]) {bounds = array<i64: 2, 1, 1, 2, 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d2), ((d6 * 2) + d3), (d7 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d1), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x4x4xf64>, tensor<1x2x2x3xf64>), (tensor<2x1x1x2x2xf64>) -> tensor<2x1x1x2x2xf64> {
// INPUTS-NEXT:    ^bb0([[V18:%[a-zA-Z0-9_.$-]+]]: f64, [[V19:%[a-zA-Z0-9_.$-]+]]: f64, [[V20:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V19]] : f64
// INPUTS-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V20]], [[V21]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V22]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// INPUTS-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x1x2x1x2x2xf64>} : tensor<2x1x2x1x2x2xf64>
// INPUTS-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V17]], [[V23]]) init([[V24]]) {bounds = array<i64: 2, 1, 2, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x1x1x2x2xf64>, tensor<2x2xf64>), (tensor<2x1x2x1x2x2xf64>) -> tensor<2x1x2x1x2x2xf64> {
// INPUTS-NEXT:    ^bb0([[V26:%[a-zA-Z0-9_.$-]+]]: f64, [[V27:%[a-zA-Z0-9_.$-]+]]: f64, [[V28:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V27]], [[V29]] : f64
// INPUTS-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.select [[V30]], [[V26]], [[V31]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V32]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V25]] : (tensor<2x1x2x1x2x2xf64>) -> tensor<2x2x2x2xf64>
// INPUTS-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>} : tensor<2xf64>
// INPUTS-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V34]]) {bounds = array<i64: 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>], iterators = ["parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V36:%[a-zA-Z0-9_.$-]+]]: f64, [[V37:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V37]], [[V36]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V38]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    func.return [[Y]], [[V14]], [[V33]], [[V35]] : tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<1x2x3x3xf64>, %w: tensor<2x2x2x2xf64>, %b: tensor<2xf64>) -> tensor<1x2x2x3xf64> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
  func.return %y : tensor<1x2x2x3xf64>
}
