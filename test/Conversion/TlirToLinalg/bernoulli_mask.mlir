// bernoulli_mask: the scalar keep probability is broadcast into the body, which
// draws at the row-major index and applies TorchLean's keep test.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @mask_1d_f64
// CHECK-SAME:    (%[[P:.*]]: tensor<f64>)
// CHECK:         %[[KEY:.*]] = random.key {seed = 42 : i64, node_id = 3 : i64} : i64
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4xf64>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[P]] : tensor<f64>) outs(%[[INIT]] : tensor<4xf64>) {
// CHECK-NEXT:    ^bb0(%[[PV:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[K:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D:.*]] = random.draw %[[KEY]], %[[K]] : i32
// CHECK-NEXT:      %[[U:.*]] = random.uniform %[[D]] : f64
// CHECK-NEXT:      %[[B:.*]] = random.bernoulli %[[PV]], %[[U]] : f64
// CHECK-NEXT:      linalg.yield %[[B]] : f64
// CHECK:         func.return %[[R]] : tensor<4xf64>
func.func @mask_1d_f64(%p: tensor<f64>) -> tensor<4xf64> {
  %0 = tlir.bernoulli_mask %p {seed = 42 : i64, node_id = 3 : i64} : (tensor<f64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @mask_2x2x2_f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[A:.*]] = arith.muli %[[I0]], %[[C2]] : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[B:.*]] = arith.addi %[[A]], %[[I1]] : index
// CHECK-NEXT:      %[[C2B:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[C:.*]] = arith.muli %[[B]], %[[C2B]] : index
// CHECK-NEXT:      %[[I2:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[C]], %[[I2]] : index
// CHECK-NEXT:      %[[D:.*]] = random.draw %{{.*}}, %[[K]] : i32
// CHECK-NEXT:      %[[U:.*]] = random.uniform %[[D]] : f32
// CHECK-NEXT:      random.bernoulli %{{.*}}, %[[U]] : f32
func.func @mask_2x2x2_f32(%p: tensor<f32>) -> tensor<2x2x2xf32> {
  %0 = tlir.bernoulli_mask %p {seed = 1 : i64, node_id = 5 : i64} : (tensor<f32>) -> tensor<2x2x2xf32>
  func.return %0 : tensor<2x2x2xf32>
}
