// conv: docs/autodiff.md#d6-conv-vjp: dx at i = fold over the group's output channels, then kernel
// cells, of g·K where o·stride + k·dilation - pad = i, as one tlir_ad.conv_input_grad on g and the
// weight's group blocks transposed; dK = fold over leading then output positions of x_pad·g (+0
// off the group blocks); db = fold of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-vjp{wrt=inputs}' | filecheck %s --check-prefix=INPUTS

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x2x3xf64>) -> (tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.conv [[X]], [[W]], [[B]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x1x1x2x2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[W]]) init([[V1]]) {bounds = array<i64: 2, 1, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> ((d0 + d2), (d0 + d1), d3, d4)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x2x2x2xf64>), (tensor<2x1x1x2x2xf64>) -> tensor<2x1x1x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V3]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V2]] : (tensor<2x1x1x2x2xf64>) -> tensor<2x1x2x2xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.conv_input_grad [[DY0]], [[V5]] {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64} : (tensor<1x2x2x3xf64>, tensor<2x1x2x2xf64>) -> tensor<1x2x3x3xf64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V8]] : (tensor<f64>) -> tensor<2x1x1x2x2xf64>
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V7]], [[DY0]]) init([[V9]]) {bounds = array<i64: 2, 1, 1, 2, 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d2), ((d6 * 2) + d3), (d7 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d1), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x4x4xf64>, tensor<1x2x2x3xf64>), (tensor<2x1x1x2x2xf64>) -> tensor<2x1x1x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V11]], [[V12]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V13]], [[V14]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V15]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V17]] : (tensor<f64>) -> tensor<2x1x2x1x2x2xf64>
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V10]], [[V16]]) init([[V18]]) {bounds = array<i64: 2, 1, 2, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x1x1x2x2xf64>, tensor<2x2xf64>), (tensor<2x1x2x1x2x2xf64>) -> tensor<2x1x2x1x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64, [[V22:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V21]], [[V23]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V24]], [[V20]], [[V25]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V26]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V19]] : (tensor<2x1x2x1x2x2xf64>) -> tensor<2x2x2x2xf64>
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V28]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V29]]) {bounds = array<i64: 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>], iterators = ["parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V32]], [[V31]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V33]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V6]], [[V27]], [[V30]] : tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>
// CHECK-NEXT:  }

// INPUTS-LABEL: func.func @main_vjp
// INPUTS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x3x3xf64>, [[W:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2x2xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<1x2x2x3xf64>) -> (tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) {
// INPUTS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.conv [[X]], [[W]], [[B]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
// INPUTS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x1x1x2x2xf64>
// INPUTS-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[W]]) init([[V1]]) {bounds = array<i64: 2, 1, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> ((d0 + d2), (d0 + d1), d3, d4)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x2x2x2xf64>), (tensor<2x1x1x2x2xf64>) -> tensor<2x1x1x2x2xf64> {
// INPUTS-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    tlir_ad.yield [[V3]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V2]] : (tensor<2x1x1x2x2xf64>) -> tensor<2x1x2x2xf64>
// INPUTS-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.conv_input_grad [[DY0]], [[V5]] {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64} : (tensor<1x2x2x3xf64>, tensor<2x1x2x2xf64>) -> tensor<1x2x3x3xf64>
// INPUTS-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, interior = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf64>) -> tensor<1x2x4x4xf64>
// INPUTS-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V8]] : (tensor<f64>) -> tensor<2x1x1x2x2xf64>
// INPUTS-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V7]], [[DY0]]) init([[V9]]) {bounds = array<i64: 2, 1, 1, 2, 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d2), ((d6 * 2) + d3), (d7 + d4))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, (d0 + d1), d6, d7)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x4x4xf64>, tensor<1x2x2x3xf64>), (tensor<2x1x1x2x2xf64>) -> tensor<2x1x1x2x2xf64> {
// INPUTS-NEXT:    ^bb0([[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V11]], [[V12]] : f64
// INPUTS-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V13]], [[V14]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V15]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// INPUTS-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V17]] : (tensor<f64>) -> tensor<2x1x2x1x2x2xf64>
// INPUTS-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V10]], [[V16]]) init([[V18]]) {bounds = array<i64: 2, 1, 2, 1, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x1x1x2x2xf64>, tensor<2x2xf64>), (tensor<2x1x2x1x2x2xf64>) -> tensor<2x1x2x1x2x2xf64> {
// INPUTS-NEXT:    ^bb0([[V20:%[a-zA-Z0-9_.$-]+]]: f64, [[V21:%[a-zA-Z0-9_.$-]+]]: f64, [[V22:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V21]], [[V23]] : f64
// INPUTS-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// INPUTS-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V24]], [[V20]], [[V25]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V26]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V19]] : (tensor<2x1x2x1x2x2xf64>) -> tensor<2x2x2x2xf64>
// INPUTS-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// INPUTS-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V28]] : (tensor<f64>) -> tensor<2xf64>
// INPUTS-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V29]]) {bounds = array<i64: 2, 1, 2, 3>, maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>], iterators = ["parallel", "reduction", "reduction", "reduction"]} : (tensor<1x2x2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// INPUTS-NEXT:    ^bb0([[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64):
// INPUTS-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V32]], [[V31]] : f64
// INPUTS-NEXT:    tlir_ad.yield [[V33]] : f64
// INPUTS-NEXT:    }
// INPUTS-NEXT:    func.return [[Y]], [[V6]], [[V27]], [[V30]] : tensor<1x2x2x3xf64>, tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>
// INPUTS-NEXT:  }

func.func @main(%x: tensor<1x2x3x3xf64>, %w: tensor<2x2x2x2xf64>, %b: tensor<2xf64>) -> tensor<1x2x2x3xf64> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, padding_after = array<i64: 0, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x2x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x3xf64>
  func.return %y : tensor<1x2x2x3xf64>
}
