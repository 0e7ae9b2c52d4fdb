// max_pool: two outputs, the best value (from 0) and a `seen` flag (from false);
// a cell is taken if it is inside the input and either nothing was seen yet or it
// is strictly greater (cmpf ogt): padding never contributes, a first NaN sticks.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @max_pool_no_padding
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x6x6xf32>)
// CHECK:         %[[BEST:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
// CHECK:         %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:    %[[SEEN:.*]] = linalg.fill ins(%[[FALSE]] : i1) outs(%{{.*}} : tensor<2x3x3x3xi1>) -> tensor<2x3x3x3xi1>
// CHECK-NEXT:    %[[WIN:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT:    %[[R:.*]], %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[WIN]] : tensor<2x3x6x6xf32>, tensor<2x2xf32>) outs(%[[BEST]], %[[SEEN]] : tensor<2x3x3x3xf32>, tensor<2x3x3x3xi1>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32, %{{.*}}: f32, %[[CUR:.*]]: f32, %[[WAS:.*]]: i1):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[CUR]] : f32
// CHECK-NEXT:      %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:      %[[UNSEEN:.*]] = arith.xori %[[WAS]], %[[TRUE]] : i1
// CHECK-NEXT:      %[[TAKE:.*]] = arith.ori %[[UNSEEN]], %[[GT]] : i1
// CHECK-NEXT:      %[[NOW:.*]] = arith.constant true
// CHECK-NEXT:      %[[NEW:.*]] = arith.select %[[TAKE]], %[[V]], %[[CUR]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]], %[[NOW]] : f32, i1
// CHECK:         func.return %[[R]] : tensor<2x3x3x3xf32>
func.func @max_pool_no_padding(%x: tensor<2x3x6x6xf32>) -> tensor<2x3x3x3xf32> {
  %0 = tlir.max_pool %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x3x6x6xf32>) -> tensor<2x3x3x3xf32>
  func.return %0 : tensor<2x3x3x3xf32>
}

// -----

// Padded: each axis checks p <= o·s + w < p + in on the padded coordinate.
// CHECK-LABEL: func.func @max_pool_padded_f64
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 1] [1, 5, 5] [1, 1, 1] : tensor<1x5x5xf64> into tensor<1x7x7xf64>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, ((d1 * 2) + d3), (d2 + d4))>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f64, %{{.*}}: f64, %[[CUR:.*]]: f64, %[[WAS:.*]]: i1):
// CHECK-NEXT:      %[[O:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[S:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[OS:.*]] = arith.muli %[[O]], %[[S]] : index
// CHECK-NEXT:      %[[W:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[Q:.*]] = arith.addi %[[OS]], %[[W]] : index
// CHECK-NEXT:      %[[P:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[GE:.*]] = arith.cmpi sge, %[[Q]], %[[P]] : index
// CHECK-NEXT:      %[[END:.*]] = arith.constant 6 : index
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi slt, %[[Q]], %[[END]] : index
// CHECK-NEXT:      %[[IN0:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:           %[[IN1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[VALID:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[CUR]] : f64
// CHECK:           %[[UNSEEN:.*]] = arith.xori %[[WAS]], %{{.*}} : i1
// CHECK-NEXT:      %[[EITHER:.*]] = arith.ori %[[UNSEEN]], %[[GT]] : i1
// CHECK-NEXT:      %[[TAKE:.*]] = arith.andi %[[VALID]], %[[EITHER]] : i1
// CHECK-NEXT:      %[[NOW:.*]] = arith.ori %[[WAS]], %[[VALID]] : i1
// CHECK-NEXT:      %[[NEW:.*]] = arith.select %[[TAKE]], %[[V]], %[[CUR]] : f64
// CHECK-NEXT:      linalg.yield %[[NEW]], %[[NOW]] : f64, i1
func.func @max_pool_padded_f64(%x: tensor<1x5x5xf64>) -> tensor<1x3x5xf64> {
  %0 = tlir.max_pool %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 1>, padding = array<i64: 1, 1>} : (tensor<1x5x5xf64>) -> tensor<1x3x5xf64>
  func.return %0 : tensor<1x3x5xf64>
}

// -----

// One spatial axis, no leading axes.
// CHECK-LABEL: func.func @max_pool_1d
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * 2) + d1))>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
func.func @max_pool_1d(%x: tensor<7xf32>) -> tensor<4xf32> {
  %0 = tlir.max_pool %x {kernel = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<7xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// Padding larger than half the kernel: an empty axis (docs/ops.md#max_pool), nothing computed.
// CHECK-LABEL: func.func @max_pool_zero_extent
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<0xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<0xf32>
func.func @max_pool_zero_extent(%x: tensor<5xf32>) -> tensor<0xf32> {
  %0 = tlir.max_pool %x {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 2>} : (tensor<5xf32>) -> tensor<0xf32>
  func.return %0 : tensor<0xf32>
}
