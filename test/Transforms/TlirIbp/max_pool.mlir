// max_pool without padding: one fold of both ends over the pooled positions, each
// cell of the window an operand (per cell the low end, then the high end). Through a
// relu the fold reads the relu's operand and applies relu (x ≤ 0 ? 0 : x) to each cell;
// through a permute it reads the permute's operand in its own layout and permutes the
// pooled result; the relu and permute it read through are dropped. Each end is the
// first cell, then a later one where strictly greater (ogt).
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<1x4x4x2xf64>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<1x4x4x2xf64>)
// CHECK-NOT:     tlir.max_pool
// CHECK-NOT:     tlir.relu
// CHECK-NOT:     tlir.permute
// CHECK:         [[ROW:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2xf64>}
// CHECK-NEXT:    [[S_LO:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[ROW]] : (tensor<2xf64>) -> tensor<1x2x2x2xf64>
// CHECK-NEXT:    [[S_HI:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[ROW]] : (tensor<2xf64>) -> tensor<1x2x2x2xf64>
// CHECK-NEXT:    [[LO:%[a-zA-Z0-9_.$-]+]], [[HI:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X_LO]], [[X_HI]], [[X_LO]], [[X_HI]], [[X_LO]], [[X_HI]], [[X_LO]], [[X_HI]]) init([[S_LO]], [[S_HI]])
// CHECK-SAME:    maps = [affine_map<(d0, d1, d2, d3) -> (d0, (d1 * 2), (d2 * 2), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, (d1 * 2), (d2 * 2), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, (d1 * 2), ((d2 * 2) + 1), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, (d1 * 2), ((d2 * 2) + 1), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 2) + 1), (d2 * 2), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 2) + 1), (d2 * 2), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 2) + 1), ((d2 * 2) + 1), d3)>, affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 2) + 1), ((d2 * 2) + 1), d3)>]
// CHECK-SAME:    iterators = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NEXT:    ^bb0([[C0:%[a-zA-Z0-9_.$-]+]]: f64, {{%[a-zA-Z0-9_.$-]+}}: f64, [[C1:%[a-zA-Z0-9_.$-]+]]: f64, {{%[a-zA-Z0-9_.$-]+}}: f64, [[C2:%[a-zA-Z0-9_.$-]+]]: f64, {{%[a-zA-Z0-9_.$-]+}}: f64, [[C3:%[a-zA-Z0-9_.$-]+]]: f64,
// CHECK-NEXT:    [[Z:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[N0:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[C0]], [[Z]] : f64
// CHECK-NEXT:    [[R0:%[a-zA-Z0-9_.$-]+]] = arith.select [[N0]], [[Z]], [[C0]] : f64
// CHECK:         [[R1:%[a-zA-Z0-9_.$-]+]] = arith.select {{.*}}, [[C1]] : f64
// CHECK:         [[R2:%[a-zA-Z0-9_.$-]+]] = arith.select {{.*}}, [[C2]] : f64
// CHECK:         [[R3:%[a-zA-Z0-9_.$-]+]] = arith.select {{.*}}, [[C3]] : f64
// CHECK-NEXT:    [[G1:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[R1]], [[R0]] : f64
// CHECK-NEXT:    [[M1:%[a-zA-Z0-9_.$-]+]] = arith.select [[G1]], [[R1]], [[R0]] : f64
// CHECK-NEXT:    [[G2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[R2]], [[M1]] : f64
// CHECK-NEXT:    [[M2:%[a-zA-Z0-9_.$-]+]] = arith.select [[G2]], [[R2]], [[M1]] : f64
// CHECK-NEXT:    [[G3:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[R3]], [[M2]] : f64
// CHECK-NEXT:    [[M3:%[a-zA-Z0-9_.$-]+]] = arith.select [[G3]], [[R3]], [[M2]] : f64
// CHECK:         tlir_ad.yield [[M3]], {{%[a-zA-Z0-9_.$-]+}} : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[P_LO:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[LO]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x2xf64>) -> tensor<1x2x2x2xf64>
// CHECK-NEXT:    [[P_HI:%[a-zA-Z0-9_.$-]+]] = tlir.permute [[HI]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x2xf64>) -> tensor<1x2x2x2xf64>
// CHECK:         func.return [[P_LO]], [[P_HI]], {{.*}}

func.func @main(%x: tensor<1x4x4x2xf64>) -> tensor<1x2x2x2xf64> {
  %p = tlir.permute %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x2xf64>) -> tensor<1x2x4x4xf64>
  %r = tlir.relu %p : (tensor<1x2x4x4xf64>) -> tensor<1x2x4x4xf64>
  %y = tlir.max_pool %r {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf64>) -> tensor<1x2x2x2xf64>
  func.return %y : tensor<1x2x2x2xf64>
}
