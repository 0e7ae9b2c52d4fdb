// tlir_ad ops: each one linalg.generic whose body is the op's region (tlir_ad.yield
// becomes linalg.yield). map: identity maps, rank-0 operands broadcast. fold: the box's
// dimensions are the loops, the results indexed by the parallel ones and started from
// the inits (an empty tensor, the start's computation erased, for a result the region
// never reads where every reduced range is non-empty: the last term gives it); a
// dimension no input reads as a plain index gets a shape-only operand,
// and a plain index covering part of an axis reads a slice. pad: a +0 fill, a strided
// write into the slice the elements span, an insert.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @map
// CHECK-SAME:    (%[[A:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[Q:.*]], %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[A]], %[[S]] : tensor<3xf32>, tensor<f32>) outs(%[[E0]], %[[E1]] : tensor<3xf32>, tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[D]], %[[X]] : f32, f32
// CHECK-NEXT:    } -> (tensor<3xf32>, tensor<3xf32>)
func.func @map(%a: tensor<3xf32>, %s: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %q, %r = tlir_ad.map(%a, %s) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.divf %x, %y : f32
    tlir_ad.yield %d, %x : f32, f32
  }
  func.return %q, %r : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @fold
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf64>
// CHECK-NEXT:    %[[W:.*]] = tensor.empty() : tensor<3xf64>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * 2) + d1))>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[W]] : tensor<5xf64>, tensor<3xf64>) outs(%[[Z]] : tensor<2xf64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %{{.*}}: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:      linalg.yield %[[SUM]] : f64
// CHECK-NEXT:    } -> tensor<2xf64>
func.func @fold(%a: tensor<5xf64>) -> tensor<2xf64> {
  %z = tlir.const {value = dense<0.0> : tensor<2xf64>} : tensor<2xf64>
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>], iterators = ["parallel", "reduction"]} : (tensor<5xf64>), (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    tlir_ad.yield %s : f64
  }
  func.return %r : tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK:         %[[CUT:.*]] = tensor.extract_slice %{{.*}}[0] [3] [1] : tensor<5xf64> to tensor<3xf64>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<3xf64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[CUT]] : tensor<3xf64>) outs(%[[E]] : tensor<3xf64>)
func.func @slice(%a: tensor<5xf64>) -> tensor<3xf64> {
  %z = tlir.const {value = dense<0.0> : tensor<3xf64>} : tensor<3xf64>
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 3>, maps = [affine_map<(d0) -> (d0)>], iterators = ["parallel"]} : (tensor<5xf64>), (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%x: f64, %acc: f64):
    tlir_ad.yield %x : f64
  }
  func.return %r : tensor<3xf64>
}

// -----

// The first result's start (a broadcast) is not read by the region: an empty tensor,
// the broadcast erased; the second one's is read (the sum) and kept.
// CHECK-LABEL: func.func @unread_start
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf64>, %[[S:.*]]: tensor<f64>)
// CHECK-NEXT:    %[[KEPT:.*]] = tensor.empty() : tensor<2xf64>
// CHECK-NEXT:    %[[START:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<f64>) outs(%[[KEPT]] : tensor<2xf64>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    } -> tensor<2xf64>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2xf64>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = linalg.generic {{.*}} ins(%[[A]] : tensor<2x3xf64>) outs(%[[E]], %[[START]] : tensor<2xf64>, tensor<2xf64>)
// CHECK-NOT:     linalg.generic
func.func @unread_start(%a: tensor<2x3xf64>, %s: tensor<f64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %z = tlir.broadcast_to %s : (tensor<f64>) -> tensor<2xf64>
  %w = tlir.broadcast_to %s : (tensor<f64>) -> tensor<2xf64>
  %last, %sum = tlir_ad.fold ins(%a) init(%z, %w) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {
  ^bb0(%x: f64, %acc0: f64, %acc1: f64):
    %t = arith.addf %acc1, %x : f64
    tlir_ad.yield %x, %t : f64, f64
  }
  func.return %last, %sum : tensor<2xf64>, tensor<2xf64>
}

// -----

// An empty reduced range leaves the start as the result: kept even where unread.
// CHECK-LABEL: func.func @empty_range_keeps_start
// CHECK:         %[[START:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<f64>) outs(%{{.*}} : tensor<2xf64>)
// CHECK:         linalg.generic {{.*}} outs(%[[START]] : tensor<2xf64>)
func.func @empty_range_keeps_start(%a: tensor<2x0xf64>, %s: tensor<f64>) -> tensor<2xf64> {
  %z = tlir.broadcast_to %s : (tensor<f64>) -> tensor<2xf64>
  %r = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 2, 0>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x0xf64>), (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%x: f64, %acc: f64):
    tlir_ad.yield %x : f64
  }
  func.return %r : tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8xf64>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%[[E]] : tensor<8xf64>) -> tensor<8xf64>
// CHECK-NEXT:    %[[SPAN:.*]] = tensor.extract_slice %[[F]][1] [5] [1] : tensor<8xf64> to tensor<5xf64>
// CHECK-NEXT:    %[[W:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ((d0 * 2))>], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<3xf64>) outs(%[[SPAN]] : tensor<5xf64>)
// CHECK:         %[[P:.*]] = tensor.insert_slice %[[W]] into %[[F]][1] [5] [1] : tensor<5xf64> into tensor<8xf64>
// CHECK-NEXT:    func.return %[[P]] : tensor<8xf64>
func.func @pad(%a: tensor<3xf64>) -> tensor<8xf64> {
  %p = tlir_ad.pad %a {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf64>) -> tensor<8xf64>
  func.return %p : tensor<8xf64>
}

// -----

// pad without interior padding: only the border is filled, slab by slab (axis 1's
// over the window's extent of axis 2, axis 2's over the whole of axis 1), each
// inserted back; the window is written by the copy alone.
// CHECK-LABEL: func.func @pad_border
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x6x6xf64>
// CHECK-NEXT:    %[[S1:.*]] = tensor.extract_slice %[[E]][0, 0, 2] [2, 1, 4] [1, 1, 1]
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill ins(%[[Z1]] : f64) outs(%[[S1]] : tensor<2x1x4xf64>)
// CHECK-NEXT:    %[[T1:.*]] = tensor.insert_slice %[[F1]] into %[[E]][0, 0, 2] [2, 1, 4] [1, 1, 1]
// CHECK-NEXT:    %[[S2:.*]] = tensor.extract_slice %[[T1]][0, 4, 2] [2, 2, 4] [1, 1, 1]
// CHECK:         %[[T2:.*]] = tensor.insert_slice %{{.*}} into %[[T1]][0, 4, 2] [2, 2, 4] [1, 1, 1]
// CHECK-NEXT:    %[[S3:.*]] = tensor.extract_slice %[[T2]][0, 0, 0] [2, 6, 2] [1, 1, 1]
// CHECK:         %[[T3:.*]] = tensor.insert_slice %{{.*}} into %[[T2]][0, 0, 0] [2, 6, 2] [1, 1, 1]
// CHECK-NEXT:    %[[W:.*]] = tensor.extract_slice %[[T3]][0, 1, 2] [2, 3, 4] [1, 1, 1]
// CHECK-NEXT:    %[[C:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3x4xf64>) outs(%[[W]] : tensor<2x3x4xf64>)
// CHECK:         %[[P:.*]] = tensor.insert_slice %[[C]] into %[[T3]][0, 1, 2] [2, 3, 4] [1, 1, 1]
// CHECK-NEXT:    func.return %[[P]] : tensor<2x6x6xf64>
func.func @pad_border(%a: tensor<2x3x4xf64>) -> tensor<2x6x6xf64> {
  %p = tlir_ad.pad %a {low = array<i64: 0, 1, 2>, high = array<i64: 0, 2, 0>, interior = array<i64: 0, 0, 0>} : (tensor<2x3x4xf64>) -> tensor<2x6x6xf64>
  func.return %p : tensor<2x6x6xf64>
}

// -----

// conv_input_grad (stride 2): g spread onto the input grid (output o at 1 + 2·o), a constant
// 0/1 grid marking where outputs sit, one fold over (group, l, i, m, k) that adds g·wt only
// where the grid is 1, then the group axis merged into the channels.
// CHECK-LABEL: func.func @conv_input_grad
// CHECK:         %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, 1] [2, 5] [1, 1] : tensor<2x7xf64> to tensor<2x5xf64>
// CHECK:         %[[SPREAD:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1] [2, 5] [1, 1] : tensor<2x5xf64> into tensor<2x7xf64>
// CHECK-NEXT:    %[[MARKS:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00]> : tensor<7xf64>
// CHECK:         %[[DX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (((d0 * 2) + d3), ((d2 + 2) + (d4 * -1)))>, affine_map<(d0, d1, d2, d3, d4) -> (((d2 + 2) + (d4 * -1)))>, affine_map<(d0, d1, d2, d3, d4) -> ((d0 + d1), d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[SPREAD]], %[[MARKS]], %wt : tensor<2x7xf64>, tensor<7xf64>, tensor<1x2x2xf64>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: f64, %[[M:.*]]: f64, %[[W:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[G]], %[[W]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[ON:.*]] = arith.cmpf une, %[[M]], %[[Z]] : f64
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[ON]], %[[S]], %[[ACC]] : f64
// CHECK-NEXT:      linalg.yield %[[R]] : f64
// CHECK:         tensor.collapse_shape %[[DX]] {{\[\[}}0 : i64, 1 : i64], [2 : i64]] : tensor<1x1x5xf64> into tensor<1x5xf64>
func.func @conv_input_grad(%g: tensor<2x3xf64>, %wt: tensor<1x2x2xf64>) -> tensor<1x5xf64> {
  %dx = tlir_ad.conv_input_grad %g, %wt {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 0 : i64} : (tensor<2x3xf64>, tensor<1x2x2xf64>) -> tensor<1x5xf64>
  func.return %dx : tensor<1x5xf64>
}

// -----

// conv_kernel_grad (stride 2, dilation 3): one fold from a +0 fill over (c, k, oc, lead, o),
// the leading positions then the output positions innermost, x_pad·g added per term.
// CHECK-LABEL: func.func @conv_kernel_grad
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f64) outs(%{{.*}} : tensor<2x2x2xf64>) -> tensor<2x2x2xf64>
// CHECK-NEXT:    %[[DKT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d3, d0, ((d4 * 2) + (d1 * 3)))>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %g : tensor<3x2x8xf64>, tensor<3x2x3xf64>) outs(%[[INIT]] : tensor<2x2x2xf64>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[G:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[G]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         func.return %[[DKT]] : tensor<2x2x2xf64>
func.func @conv_kernel_grad(%x: tensor<3x2x8xf64>, %g: tensor<3x2x3xf64>) -> tensor<2x2x2xf64> {
  %dkt = tlir_ad.conv_kernel_grad %x, %g {stride = array<i64: 2>, dilation = array<i64: 3>, channel_axis = 1 : i64} : (tensor<3x2x8xf64>, tensor<3x2x3xf64>) -> tensor<2x2x2xf64>
  func.return %dkt : tensor<2x2x2xf64>
}
