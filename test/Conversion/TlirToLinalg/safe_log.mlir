// safe_log: log(softplus(x) + eps); the scalar eps operand is broadcast by a
// map with no results.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @safe_log_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[E:.*]]: tensor<f32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]], %[[E]] : tensor<3xf32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[EPS:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[T:.*]] = math.exp %{{.*}} : f32
// CHECK:           %[[L:.*]] = math.log %{{.*}} : f32
// CHECK-NEXT:      %[[XL:.*]] = arith.addf %[[A]], %[[L]] : f32
// CHECK-NEXT:      %[[SP:.*]] = arith.select %{{.*}}, %[[XL]], %[[L]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[SP]], %[[EPS]] : f32
// CHECK-NEXT:      %[[V:.*]] = math.log %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @safe_log_f32(%x: tensor<3xf32>, %e: tensor<f32>) -> tensor<3xf32> {
  %0 = tlir.safe_log %x, %e : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @safe_log_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           math.log %{{.*}} : f64
func.func @safe_log_f64(%x: tensor<2x2xf64>, %e: tensor<f64>) -> tensor<2x2xf64> {
  %0 = tlir.safe_log %x, %e : (tensor<2x2xf64>, tensor<f64>) -> tensor<2x2xf64>
  func.return %0 : tensor<2x2xf64>
}
