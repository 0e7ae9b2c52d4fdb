// max_pool whose windows tile the input (stride = kernel, no padding): the winner fold reads
// no validity grid (every cell is real), and each input position's one fold step (its
// window's output o, its cell k) is a gather over (lead, o1, k1, o2, k2): acc = +0, then
// +0 + g where the cell is the winner; reshaped to the input and padded with +0 past the last
// window (row 4 of 5).
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x5x4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2x5x4xf64>) {
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V1]] : (tensor<f64>) -> tensor<2x2x2xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V3]] : (tensor<f64>) -> tensor<2x2x2xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V5]] : (tensor<f64>) -> tensor<2x2x2xf64>
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]], [[V8:%[a-zA-Z0-9_.$-]+]], [[V9:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[V0]]) init([[V2]], [[V4]], [[V6]]) {bounds = array<i64: 2, 2, 2, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, ((d1 * 2) + d3), ((d2 * 2) + d4))>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>], iterators = ["parallel", "parallel", "parallel", "reduction", "reduction"]} : (tensor<2x5x4xf64>, tensor<2x2xf64>), (tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2x2x2xf64>) -> tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V13]], [[V16]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V15]], [[V18]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V10]], [[V12]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V17]], [[V20]] : i1
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V19]], [[V21]] : i1
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.select [[V22]], [[V10]], [[V12]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V15]], [[V24]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.select [[V25]], [[V26]], [[V13]] : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.select [[V22]], [[V11]], [[V14]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V23]], [[V27]], [[V28]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V30]] : (tensor<f64>) -> tensor<2x2x2x2x2xf64>
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[V9]], [[V29]]) init([[V31]]) {bounds = array<i64: 2, 2, 2, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2x2xf64>), (tensor<2x2x2x2x2xf64>) -> tensor<2x2x2x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V33:%[a-zA-Z0-9_.$-]+]]: f64, [[V34:%[a-zA-Z0-9_.$-]+]]: f64, [[V35:%[a-zA-Z0-9_.$-]+]]: f64, [[V36:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V34]], [[V35]] : f64
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V36]], [[V33]] : f64
// CHECK-NEXT:    [[V39:%[a-zA-Z0-9_.$-]+]] = arith.select [[V37]], [[V38]], [[V36]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V39]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V40:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V32]] : (tensor<2x2x2x2x2xf64>) -> tensor<2x4x4xf64>
// CHECK-NEXT:    [[V41:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V40]] {low = array<i64: 0, 0, 0>, high = array<i64: 0, 1, 0>, interior = array<i64: 0, 0, 0>} : (tensor<2x4x4xf64>) -> tensor<2x5x4xf64>
// CHECK-NEXT:    func.return [[Y]], [[V41]] : tensor<2x2x2xf64>, tensor<2x5x4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x5x4xf64>) -> tensor<2x2x2xf64> {
  %y = tlir.max_pool %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x5x4xf64>) -> tensor<2x2x2xf64>
  func.return %y : tensor<2x2x2xf64>
}
