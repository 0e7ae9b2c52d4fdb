// batch_norm_eval: one generic; per-channel parameters read at the channel axis;
// y = ((x - mean) / sqrt(max(max(var, 0) + eps, 0))) · gamma + beta with Lean's max.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @batch_norm_nchw
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x2x2xf32>, %[[G:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[G]], %[[B]], %[[M]], %[[V]] : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[XV:.*]]: f32, %[[GV:.*]]: f32, %[[BV:.*]]: f32, %[[MV:.*]]: f32, %[[VV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[LE:.*]] = arith.cmpf ole, %[[VV]], %[[Z]] : f32
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[VAR:.*]] = arith.select %[[LE]], %[[Z2]], %[[VV]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 1.000000e-05 : f32
// CHECK-NEXT:      %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT:      %[[Z3:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[LE2:.*]] = arith.cmpf ole, %[[VE]], %[[Z3]] : f32
// CHECK-NEXT:      %[[Z4:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[CL:.*]] = arith.select %[[LE2]], %[[Z4]], %[[VE]] : f32
// CHECK-NEXT:      %[[STD:.*]] = math.sqrt %[[CL]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.divf %[[D]], %[[STD]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[N]], %[[GV]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[S]], %[[BV]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK:         func.return %[[R]]
func.func @batch_norm_nchw(%x: tensor<2x3x2x2xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x2x2xf32> {
  %0 = tlir.batch_norm_eval %x, %g, %b, %m, %v {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2x2xf32>
  func.return %0 : tensor<2x3x2x2xf32>
}

// -----

// [N, C] input (no spatial axes), f64, eps kept in f64.
// CHECK-LABEL: func.func @batch_norm_nc_f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:           arith.constant 1.000000e-03 : f64
// CHECK:           math.sqrt %{{.*}} : f64
func.func @batch_norm_nc_f64(%x: tensor<4x3xf64>, %c: tensor<3xf64>) -> tensor<4x3xf64> {
  %0 = tlir.batch_norm_eval %x, %c, %c, %c, %c {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-03 : f64} : (tensor<4x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<4x3xf64>
  func.return %0 : tensor<4x3xf64>
}
