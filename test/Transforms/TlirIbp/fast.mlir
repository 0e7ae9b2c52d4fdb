// The contractions' fast path (tlir-ibp{fast=true}): a linear of at least 2^15 terms
// (FAST_TERMS; smaller ones keep the exact rule), its rows fewer than two vectors (else
// the signed layout, signed.mlir), whose outputs fill a register tile (two 8-lane vectors of f64) runs over [output tile, row block,
// column, row in the block, output in the tile], its weight permuted into panels
// [tile, column, output]; every step of a term is tlir_ad.step_down/step_up
// (RD(y - m), RU(y + m)), in TorchLean's order; the sums are checked finite (a
// count of non-finite sums per first and last index, then their total, returned after the
// status), permuted back, and the bias is added with TorchLean's steps.
// RUN: tlir-opt %s -p 'tlir-ibp{fast=true}' | filecheck %s
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s --check-prefix=EXACT

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    -> (tensor<12x16xf64>, tensor<12x16xf64>, tensor<f64>, tensor<f64>)
// CHECK:         [[R:%[a-zA-Z0-9_.$-]+]] = tlir.reshape %w : (tensor<16x192xf64>) -> tensor<1x16x192xf64>
// CHECK-NEXT:    [[P:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[R]] {perm = array<i64: 0, 2, 1>} : (tensor<1x16x192xf64>) -> tensor<1x192x16xf64>
// CHECK:         [[LO:%[a-zA-Z0-9_.$-]+]], [[HI:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins(%x_lo, %x_hi, [[P]])
// CHECK-SAME:      bounds = array<i64: 1, 3, 192, 4, 16>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4) -> (((d1 * 4) + d3), d2)>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>
// CHECK-SAME:      iterators = ["parallel", "parallel", "reduction", "parallel", "parallel"]
// CHECK:           [[A:%[a-zA-Z0-9_.$-]+]] = arith.mulf
// CHECK-NEXT:      [[B:%[a-zA-Z0-9_.$-]+]] = arith.mulf
// CHECK-NEXT:      [[C1:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[A]], [[B]] : f64
// CHECK-NEXT:      [[MIN:%[a-zA-Z0-9_.$-]+]] = arith.select [[C1]], [[B]], [[A]] : f64
// CHECK-NEXT:      [[C2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[A]], [[B]] : f64
// CHECK-NEXT:      [[MAX:%[a-zA-Z0-9_.$-]+]] = arith.select [[C2]], [[A]], [[B]] : f64
// CHECK-NEXT:      [[T:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_down [[MIN]] : f64
// CHECK-NEXT:      [[S:%[a-zA-Z0-9_.$-]+]] = arith.addf %{{.*}}, [[T]] : f64
// CHECK-NEXT:      [[NL:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_down [[S]] : f64
// CHECK-NEXT:      [[U:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_up [[MAX]] : f64
// CHECK-NEXT:      [[V:%[a-zA-Z0-9_.$-]+]] = arith.addf %{{.*}}, [[U]] : f64
// CHECK-NEXT:      [[NH:%[a-zA-Z0-9_.$-]+]] = tlir_ad.step_up [[V]] : f64
// CHECK-NEXT:      tlir_ad.yield [[NL]], [[NH]] : f64, f64
// CHECK:         [[BAD:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[LO]], [[HI]])
// CHECK-SAME:      iterators = ["parallel", "reduction", "reduction", "parallel"]
// CHECK-SAME:      -> tensor<1x16xf64>
// CHECK:         [[CHECK:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[BAD]] : (tensor<1x16xf64>) -> tensor<f64>
// CHECK:         tlir.permute [[LO]] {perm = array<i64: 1, 2, 0, 3>}
// CHECK:           tlir_ad.next_down
// CHECK:           tlir_ad.next_up
// CHECK:         func.return %{{.*}}, %{{.*}}, %{{.*}}, [[CHECK]] : tensor<12x16xf64>, tensor<12x16xf64>, tensor<f64>, tensor<f64>

// EXACT-LABEL: func.func @main_ibp
// EXACT-SAME:    -> (tensor<12x16xf64>, tensor<12x16xf64>, tensor<f64>)
// EXACT-NOT:     tlir_ad.step_
// EXACT:         func.return
func.func @main(%x: tensor<12x192xf64>) -> tensor<12x16xf64> {
  %w = tlir.const {value = dense<0.5> : tensor<16x192xf64>} : tensor<16x192xf64>
  %b = tlir.const {value = dense<0.25> : tensor<16xf64>} : tensor<16xf64>
  %y = tlir.linear %x, %w, %b : (tensor<12x192xf64>, tensor<16x192xf64>, tensor<16xf64>) -> tensor<12x16xf64>
  func.return %y : tensor<12x16xf64>
}
