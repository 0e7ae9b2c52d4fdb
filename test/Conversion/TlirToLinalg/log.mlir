// log: math.log (the reference rejects non-positive input; compiled code does not check)
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @log_2x3_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.log %[[A]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         func.return %[[R]] : tensor<2x3xf32>
func.func @log_2x3_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tlir.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @log_4_f64
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4xf64>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xf64>) outs(%[[INIT]] : tensor<4xf64>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[V:.*]] = math.log %[[A]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
// CHECK:         func.return %[[R]] : tensor<4xf64>
func.func @log_4_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tlir.log %x : (tensor<4xf64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @log_scalar_f64
// CHECK-SAME:    (%[[X:.*]]: tensor<f64>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<f64>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%[[X]] : tensor<f64>) outs(%[[INIT]] : tensor<f64>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[V:.*]] = math.log %[[A]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
// CHECK:         func.return %[[R]] : tensor<f64>
func.func @log_scalar_f64(%x: tensor<f64>) -> tensor<f64> {
  %0 = tlir.log %x : (tensor<f64>) -> tensor<f64>
  func.return %0 : tensor<f64>
}
