// sub: elementwise subf, first operand on the left
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @sub_2x3_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] : tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         func.return %[[R]] : tensor<2x3xf32>
func.func @sub_2x3_f32(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tlir.sub %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @sub_5_f64
// CHECK-SAME:    (%[[X:.*]]: tensor<5xf64>, %[[Y:.*]]: tensor<5xf64>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<5xf64>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]], %[[Y]] : tensor<5xf64>, tensor<5xf64>) outs(%[[INIT]] : tensor<5xf64>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %[[B:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[V:.*]] = arith.subf %[[A]], %[[B]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
// CHECK:         func.return %[[R]] : tensor<5xf64>
func.func @sub_5_f64(%x: tensor<5xf64>, %y: tensor<5xf64>) -> tensor<5xf64> {
  %0 = tlir.sub %x, %y : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64>
  func.return %0 : tensor<5xf64>
}

// -----

// CHECK-LABEL: func.func @sub_scalar_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<f32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<f32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%[[X]], %[[Y]] : tensor<f32>, tensor<f32>) outs(%[[INIT]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         func.return %[[R]] : tensor<f32>
func.func @sub_scalar_f32(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = tlir.sub %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
