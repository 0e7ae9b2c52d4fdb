// The fast path's conv (tlir-ibp{fast=true}), vectorised over its output channels: a
// table of codes over [kernel cell, output position] (-1 on the input, 0 in the padding
// after it: a zero term, 1 in the padding before it: no term) is read once per term. A
// term on the input is the fast term; a zero term adds the steps of its zero products
// (-m and m, m the smallest subnormal) without computing them, the two selects side by
// side (LLVM's one branch around the products); the skip keeps the sums.
// Both tests read one compare of the flag with 0 (`ult`, `ogt`). Every kernel cell of
// this constant weight meets the input somewhere, so the sums' check also covers a
// non-finite weight: the function returns that one check.
// RUN: tlir-opt %s -p 'tlir-ibp{fast=true}' | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    -> (tensor<1x16x8x8xf64>, tensor<1x16x8x8xf64>, tensor<f64>, tensor<f64>)
// CHECK:         tlir_ad.fold ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) init
// CHECK-SAME:      bounds = array<i64: 1, 1, 8, 8, 4, 3, 3, 16>
// CHECK-NEXT:    ^bb0([[X_LO:%[0-9]+]]: f64, [[X_HI:%[0-9]+]]: f64, [[W:%[0-9]+]]: f64, [[FLAG:%[0-9]+]]: f64, [[LO:%[0-9]+]]: f64, [[HI:%[0-9]+]]: f64):
// CHECK-NEXT:      [[Z:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      [[INSIDE:%[0-9]+]] = arith.cmpf ult, [[FLAG]], [[Z]] : f64
// CHECK:           [[TL:%[0-9]+]] = tlir_ad.step_down %{{.*}} : f64
// CHECK-NEXT:      [[TH:%[0-9]+]] = tlir_ad.step_up %{{.*}} : f64
// CHECK-NEXT:      [[NEG_M:%[0-9]+]] = arith.constant -4.940660e-324 : f64
// CHECK-NEXT:      [[PL:%[0-9]+]] = arith.select [[INSIDE]], [[TL]], [[NEG_M]] : f64
// CHECK-NEXT:      [[M:%[0-9]+]] = arith.constant 4.940660e-324 : f64
// CHECK-NEXT:      [[PH:%[0-9]+]] = arith.select [[INSIDE]], [[TH]], [[M]] : f64
// CHECK-NEXT:      [[SL:%[0-9]+]] = arith.addf [[LO]], [[PL]] : f64
// CHECK-NEXT:      [[NL:%[0-9]+]] = tlir_ad.step_down [[SL]] : f64
// CHECK-NEXT:      [[SH:%[0-9]+]] = arith.addf [[HI]], [[PH]] : f64
// CHECK-NEXT:      [[NH:%[0-9]+]] = tlir_ad.step_up [[SH]] : f64
// CHECK-NEXT:      [[Z2:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      [[SKIP:%[0-9]+]] = arith.cmpf ogt, [[FLAG]], [[Z2]] : f64
// CHECK-NEXT:      [[RL:%[0-9]+]] = arith.select [[SKIP]], [[LO]], [[NL]] : f64
// CHECK-NEXT:      [[RH:%[0-9]+]] = arith.select [[SKIP]], [[HI]], [[NH]] : f64
// CHECK-NEXT:      tlir_ad.yield [[RL]], [[RH]] : f64, f64
// CHECK:         [[CHECK:%[0-9]+]] = tlir.sum
// CHECK-NOT:     tlir.sum
// CHECK:         func.return %{{.*}}, %{{.*}}, %{{.*}}, [[CHECK]] : tensor<1x16x8x8xf64>, tensor<1x16x8x8xf64>, tensor<f64>, tensor<f64>
func.func @main(%x: tensor<1x4x8x8xf64>) -> tensor<1x16x8x8xf64> {
  %w = tlir.const {value = dense<0.5> : tensor<16x4x3x3xf64>} : tensor<16x4x3x3xf64>
  %b = tlir.const {value = dense<0.25> : tensor<16xf64>} : tensor<16xf64>
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 16 : i64} : (tensor<1x4x8x8xf64>, tensor<16x4x3x3xf64>, tensor<16xf64>) -> tensor<1x16x8x8xf64>
  func.return %y : tensor<1x16x8x8xf64>
}
