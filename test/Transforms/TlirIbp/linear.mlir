// linear: the constant weight is transposed once (a point box: one tensor for both
// ends); one fold over (batch, in, out) with the summed axis before the output
// columns, from 0: addDown(acc, nextDown(min2(l·w, u·w))) and the upper end alike;
// then the bias with addDown / addUp. The status is a constant +inf.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf32>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) {
// CHECK-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, -2.000000e+00, 5.000000e-01], [3.000000e+00, 1.000000e+00, 0.000000e+00]]> : tensor<2x3xf32>} : tensor<2x3xf32>
// CHECK-NEXT:    [[B:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>} : tensor<2xf32>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[W]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V1]] : (tensor<f32>) -> tensor<2x2xf32>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<f32>) -> tensor<2x2xf32>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]], [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X_LO]], [[X_HI]], [[V0]]) init([[V2]], [[V4]]) {bounds = array<i64: 2, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterators = ["parallel", "reduction", "parallel"]} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>), (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>, tensor<2x2xf32> {
// CHECK-NEXT:    ^bb0([[V7:%[a-zA-Z0-9_.$-]+]]: f32, [[V8:%[a-zA-Z0-9_.$-]+]]: f32, [[V9:%[a-zA-Z0-9_.$-]+]]: f32, [[V10:%[a-zA-Z0-9_.$-]+]]: f32, [[V11:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V9]] : f32
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V8]], [[V9]] : f32
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V12]], [[V13]] : f32
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.select [[V14]], [[V13]], [[V12]] : f32
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V15]] : f32
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V12]], [[V13]] : f32
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.select [[V17]], [[V12]], [[V13]] : f32
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V18]] : f32
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V10]], [[V16]] : f32
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V20]] : f32
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V19]] : f32
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V22]] : f32
// CHECK-NEXT:    tlir_ad.yield [[V21]], [[V23]] : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]], [[V25:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[B]]) init([[V5]], [[V6]]) {bounds = array<i64: 2, 2>, maps = [affine_map<(d0, d1) -> (d1)>], iterators = ["parallel", "parallel"]} : (tensor<2xf32>), (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>, tensor<2x2xf32> {
// CHECK-NEXT:    ^bb0([[V26:%[a-zA-Z0-9_.$-]+]]: f32, [[V27:%[a-zA-Z0-9_.$-]+]]: f32, [[V28:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V27]], [[V26]] : f32
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V29]] : f32
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V28]], [[V26]] : f32
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V31]] : f32
// CHECK-NEXT:    tlir_ad.yield [[V30]], [[V32]] : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7f800000> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    func.return [[V24]], [[V25]], [[V33]] : tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = tlir.const {value = dense<[[1.0, -2.0, 0.5], [3.0, 1.0, 0.0]]> : tensor<2x3xf32>} : tensor<2x3xf32>
  %b = tlir.const {value = dense<[0.5, -1.0]> : tensor<2xf32>} : tensor<2xf32>
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  func.return %y : tensor<2x2xf32>
}
