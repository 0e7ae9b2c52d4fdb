// layernorm: over the axes from `axis` on, row-major: mu = fold-sum(x)/N;
// c = x - mu; mu2 = fold-sum(c)/N; v = fold-sum((c - mu2)^2)/N;
// sigma = sqrt(max(max(v, 0) + eps, 0)); y = (c / sigma) · gamma + beta.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @layernorm_affine
// CHECK-SAME:    (%[[X:.*]]: tensor<3x4xf64>, %[[G:.*]]: tensor<4xf64>, %[[B:.*]]: tensor<4xf64>)
// CHECK:         %[[S1:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<3x4xf64>)
// CHECK:         %[[MU:.*]] = linalg.generic {{.*}} ins(%[[S1]] : tensor<3xf64>)
// CHECK:           arith.constant 4.000000e+00 : f64
// CHECK:         %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MU]] : tensor<3x4xf64>, tensor<3xf64>)
// CHECK:           arith.subf
// CHECK:         %[[S2:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[C]] : tensor<3x4xf64>)
// CHECK:         %[[MU2:.*]] = linalg.generic {{.*}} ins(%[[S2]] : tensor<3xf64>)
// CHECK:         %[[SQ:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[C]], %[[MU2]] : tensor<3x4xf64>, tensor<3xf64>)
// CHECK-NEXT:    ^bb0(%[[CV:.*]]: f64, %[[M2:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[DEV:.*]] = arith.subf %[[CV]], %[[M2]] : f64
// CHECK-NEXT:      %[[DD:.*]] = arith.mulf %[[DEV]], %[[DEV]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[DD]] : f64
// CHECK:         %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<3xf64>)
// CHECK:         %[[SIGMA:.*]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<3xf64>)
// CHECK:           arith.cmpf ole
// CHECK:           arith.constant 1.000000e-05 : f64
// CHECK:           arith.cmpf ole
// CHECK:           math.sqrt
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[C]], %[[SIGMA]], %[[G]], %[[B]] : tensor<3x4xf64>, tensor<3xf64>, tensor<4xf64>, tensor<4xf64>)
// CHECK-NEXT:    ^bb0(%[[CC:.*]]: f64, %[[SG:.*]]: f64, %[[GV:.*]]: f64, %[[BV:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[N:.*]] = arith.divf %[[CC]], %[[SG]] : f64
// CHECK-NEXT:      %[[NG:.*]] = arith.mulf %[[N]], %[[GV]] : f64
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[NG]], %[[BV]] : f64
// CHECK-NEXT:      linalg.yield %[[Y]] : f64
// CHECK:         func.return %[[R]]
func.func @layernorm_affine(%x: tensor<3x4xf64>, %g: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<3x4xf64> {
  %0 = tlir.layernorm %x affine(%g, %b) {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  func.return %0 : tensor<3x4xf64>
}

// -----

// Normalized over the last two axes (N = 8), no affine part: y = c / sigma.
// CHECK-LABEL: func.func @layernorm_two_axes_plain_f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:           math.sqrt %{{.*}} : f32
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[CC:.*]]: f32, %[[SG:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.divf %[[CC]], %[[SG]] : f32
// CHECK-NEXT:      linalg.yield %[[N]] : f32
func.func @layernorm_two_axes_plain_f32(%x: tensor<3x2x4xf32>) -> tensor<3x2x4xf32> {
  %0 = tlir.layernorm %x {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<3x2x4xf32>) -> tensor<3x2x4xf32>
  func.return %0 : tensor<3x2x4xf32>
}
