// The signed interval linear (tlir-ibp{fast=true}, passes/ibp/signed.py): a constant weight
// and at least two whole vectors of rows (32 rows of f64: 4 vectors). The input box is
// stacked once into [end, column, row] (one pass reading each end transposed) and checked ordered (x_lo <= x_hi, a
// count returned after the status); the fold runs over [output tile, row tile, column,
// output, row] (tiles of 2 outputs x 32 rows), reading the stacked box twice, and takes
// each product's end by the weight's sign (no cmpf ogt/min/max); its sums checked finite;
// the bias added in [output, row] layout and the box stacked again, through one relu of both
// ends, as the next layer's input (no transpose, no order check between the layers); only
// the chain's output is transposed back.
// RUN: tlir-opt %s -p 'tlir-ibp{fast=true}' | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    -> (tensor<32x10xf64>, tensor<32x10xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>)
// CHECK:         [[X:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins(%x_lo, %x_hi, %{{[0-9]+}}) init(%{{[0-9]+}})
// CHECK-SAME:      affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0)>
// CHECK-SAME:      -> tensor<2x256x32xf64>
// CHECK:           arith.select
// CHECK:         [[ORD:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[X]])
// CHECK-SAME:      affine_map<(d0, d1) -> (0, d0, d1)>, affine_map<(d0, d1) -> (1, d0, d1)>
// CHECK:           arith.cmpf ole
// CHECK:         [[ORDERED:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[ORD]]
// CHECK:         [[LO:%[a-zA-Z0-9_.$-]+]], [[HI:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[X]], %w)
// CHECK-SAME:      bounds = array<i64: 128, 1, 256, 2, 32>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4) -> (0, d2, ((d1 * 32) + d4))>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4) -> (1, d2, ((d1 * 32) + d4))>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4) -> (((d0 * 2) + d3), d2)>
// CHECK-SAME:      iterators = ["parallel", "parallel", "reduction", "parallel", "parallel"]
// CHECK-NEXT:    ^bb0([[XL:%[a-zA-Z0-9_.$-]+]]: f64, [[XH:%[a-zA-Z0-9_.$-]+]]: f64, [[W:%[a-zA-Z0-9_.$-]+]]: f64, [[AL:%[a-zA-Z0-9_.$-]+]]: f64, [[AH:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:      [[Z:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      [[POS:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oge, [[W]], [[Z]] : f64
// CHECK-NEXT:      [[SL:%[a-zA-Z0-9_.$-]+]] = arith.select [[POS]], [[XL]], [[XH]] : f64
// CHECK-NEXT:      [[PL:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[SL]], [[W]] : f64
// CHECK-NEXT:      [[SH:%[a-zA-Z0-9_.$-]+]] = arith.select [[POS]], [[XH]], [[XL]] : f64
// CHECK-NEXT:      [[PH:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[SH]], [[W]] : f64
// CHECK-NEXT:      [[TL:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_down [[PL]] : f64
// CHECK-NEXT:      [[SUML:%[a-zA-Z0-9_.$-]+]] = arith.addf [[AL]], [[TL]] : f64
// CHECK-NEXT:      [[NL:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_down [[SUML]] : f64
// CHECK-NEXT:      [[TH:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_up [[PH]] : f64
// CHECK-NEXT:      [[SUMH:%[a-zA-Z0-9_.$-]+]] = arith.addf [[AH]], [[TH]] : f64
// CHECK-NEXT:      [[NH:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_up [[SUMH]] : f64
// CHECK-NEXT:      tlir_ad.yield [[NL]], [[NH]] : f64, f64
// CHECK:         [[FIN:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[LO]], [[HI]])
// CHECK:         [[FINITE:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[FIN]]
// CHECK:         [[BL:%[a-zA-Z0-9_.$-]+]], [[BH:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins(%b)
// CHECK-SAME:      -> tensor<256x32xf64>, tensor<256x32xf64>
// CHECK:         [[Y:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map({{.*}}) : {{.*}} -> tensor<2x256x32xf64>
// CHECK:           arith.select
// CHECK:         [[RELU:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[Y]] : (tensor<2x256x32xf64>) -> tensor<2x256x32xf64>
// CHECK-NOT:     tlir.transpose
// CHECK-NOT:     arith.cmpf ole
// CHECK:         [[LO2:%[a-zA-Z0-9_.$-]+]], [[HI2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[RELU]], [[RELU]], %w2)
// CHECK-SAME:      bounds = array<i64: 5, 1, 256, 2, 32>
// CHECK-NOT:       arith.cmpf ogt
// CHECK:         [[FINITE2:%[a-zA-Z0-9_.$-]+]] = tlir.sum
// CHECK:         [[ZL:%[a-zA-Z0-9_.$-]+]], [[ZH:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins(%b2)
// CHECK:         [[OL:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[ZL]] {{.*}} -> tensor<32x10xf64>
// CHECK-NEXT:    [[OH:%[a-zA-Z0-9_.$-]+]] = tlir.transpose [[ZH]] {{.*}} -> tensor<32x10xf64>
// CHECK-NOT:     tlir_ad.map
// CHECK:         func.return [[OL]], [[OH]], %{{.*}}, [[ORDERED]], [[FINITE]], [[FINITE2]]
func.func @main(%x: tensor<32x256xf64>) -> tensor<32x10xf64> {
  %w = tlir.const {value = dense<0.5> : tensor<256x256xf64>} : tensor<256x256xf64>
  %b = tlir.const {value = dense<0.25> : tensor<256xf64>} : tensor<256xf64>
  %y = tlir.linear %x, %w, %b : (tensor<32x256xf64>, tensor<256x256xf64>, tensor<256xf64>) -> tensor<32x256xf64>
  %r = tlir.relu %y : (tensor<32x256xf64>) -> tensor<32x256xf64>
  %w2 = tlir.const {value = dense<-0.5> : tensor<10x256xf64>} : tensor<10x256xf64>
  %b2 = tlir.const {value = dense<0.25> : tensor<10xf64>} : tensor<10xf64>
  %z = tlir.linear %r, %w2, %b2 : (tensor<32x256xf64>, tensor<10x256xf64>, tensor<10xf64>) -> tensor<32x10xf64>
  func.return %z : tensor<32x10xf64>
}
