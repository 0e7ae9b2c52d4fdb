// hard_masked_softmax: the mask is an i1 constant; a two-output reduction finds
// the row maximum over allowed entries (first allowed, then strictly greater)
// and whether any is allowed; blocked entries and all-blocked rows give 0.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @hard_masked_softmax_2x3
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[MASK:.*]] = arith.constant dense<{{\[\[}}true, false, true], [false, false, false]]> : tensor<2x3xi1>
// CHECK:         %[[BEST:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %[[SEEN:.*]] = linalg.fill ins(%{{.*}} : i1) outs(%{{.*}} : tensor<2xi1>) -> tensor<2xi1>
// CHECK-NEXT:    %[[MAX:.*]], %[[ANY:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MASK]] : tensor<2x3xf32>, tensor<2x3xi1>) outs(%[[BEST]], %[[SEEN]] : tensor<2xf32>, tensor<2xi1>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32, %[[OK:.*]]: i1, %[[CUR:.*]]: f32, %[[WAS:.*]]: i1):
// CHECK-NEXT:      %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:      %[[UNSEEN:.*]] = arith.xori %[[WAS]], %[[TRUE]] : i1
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[CUR]] : f32
// CHECK-NEXT:      %[[EITHER:.*]] = arith.ori %[[UNSEEN]], %[[GT]] : i1
// CHECK-NEXT:      %[[TAKE:.*]] = arith.andi %[[OK]], %[[EITHER]] : i1
// CHECK-NEXT:      %[[NEW:.*]] = arith.select %[[TAKE]], %[[V]], %[[CUR]] : f32
// CHECK-NEXT:      %[[NOW:.*]] = arith.ori %[[WAS]], %[[OK]] : i1
// CHECK-NEXT:      linalg.yield %[[NEW]], %[[NOW]] : f32, i1
// CHECK:         %[[NUM:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MASK]], %[[MAX]] : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[AL:.*]]: i1, %[[MM:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[MM]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[N:.*]] = arith.select %[[AL]], %[[E]], %[[Z]] : f32
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[NUM]] : tensor<2x3xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[NUM]], %[[SUM]], %[[ANY]] : tensor<2x3xf32>, tensor<2xf32>, tensor<2xi1>)
// CHECK-NEXT:    ^bb0(%[[NV:.*]]: f32, %[[T:.*]]: f32, %[[ROW:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[NV]], %[[T]] : f32
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.select %[[ROW]], %[[Q]], %[[Z2]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK:         func.return %[[R]]
func.func @hard_masked_softmax_2x3(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tlir.hard_masked_softmax %x {mask = dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Rank 0: 1 if the single mask bit is set, else 0; the input is not read.
// CHECK-LABEL: func.func @hard_masked_softmax_scalar_allowed
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT:    func.return %[[C]] : tensor<f64>
func.func @hard_masked_softmax_scalar_allowed(%x: tensor<f64>) -> tensor<f64> {
  %0 = tlir.hard_masked_softmax %x {mask = dense<true> : tensor<i1>} : (tensor<f64>) -> tensor<f64>
  func.return %0 : tensor<f64>
}

// -----

// CHECK-LABEL: func.func @hard_masked_softmax_scalar_blocked
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    func.return %[[C]] : tensor<f32>
func.func @hard_masked_softmax_scalar_blocked(%x: tensor<f32>) -> tensor<f32> {
  %0 = tlir.hard_masked_softmax %x {mask = dense<false> : tensor<i1>} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
