// rand_uniform: a generic over the output whose body forms the row-major index
// from linalg.index and draws with the node's key (docs/random.md#draws).
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @rand_2x3_f32
// CHECK:         %[[KEY:.*]] = random.key {seed = 7 : i64, node_id = 3 : i64} : i64
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[INIT]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[N1:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[S:.*]] = arith.muli %[[I0]], %[[N1]] : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[S]], %[[I1]] : index
// CHECK-NEXT:      %[[D:.*]] = random.draw %[[KEY]], %[[K]] : i32
// CHECK-NEXT:      %[[U:.*]] = random.uniform %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[U]] : f32
// CHECK:         func.return %[[R]] : tensor<2x3xf32>
func.func @rand_2x3_f32() -> tensor<2x3xf32> {
  %0 = tlir.rand_uniform {seed = 7 : i64, node_id = 3 : i64} : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// The seed is kept modulo 2^64 (2^64 - 1 prints as -1); a scalar draws index 0.
// CHECK-LABEL: func.func @rand_scalar_f64
// CHECK:         %[[KEY:.*]] = random.key {seed = -1 : i64, node_id = 0 : i64} : i64
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []}
// CHECK-NEXT:    ^bb0(%{{.*}}: f64):
// CHECK-NEXT:      %[[K:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D:.*]] = random.draw %[[KEY]], %[[K]] : i32
// CHECK-NEXT:      %[[U:.*]] = random.uniform %[[D]] : f64
// CHECK-NEXT:      linalg.yield %[[U]] : f64
func.func @rand_scalar_f64() -> tensor<f64> {
  %0 = tlir.rand_uniform {seed = 18446744073709551615 : i64, node_id = 0 : i64} : tensor<f64>
  func.return %0 : tensor<f64>
}
