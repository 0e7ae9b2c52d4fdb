// max_pool whose windows tile the input (stride = kernel, no padding): the winner fold reads
// no validity grid (every cell is real), and each input position's one fold step (its
// window's output o, its cell k) is a gather over (lead, o1, k1, o2, k2): acc = +0, then
// +0 + g where the cell is the winner; reshaped to the input and padded with +0 past the last
// window (row 4 of 5).
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x5x4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2x5x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.max_pool [[X]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x5x4xf64>) -> tensor<2x2x2xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x2x2xf64>} : tensor<2x2x2xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x2x2xf64>} : tensor<2x2x2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x2x2xf64>} : tensor<2x2x2xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]], [[V6:%[a-zA-Z0-9_.$-]+]], [[V7:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[X]], [[V0]], [[V1]]) init([[V2]], [[V3]], [[V4]]) {bounds = array<i64: 2, 2, 2, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, ((d1 * 2) + d3), ((d2 * 2) + d4))>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>], iterators = ["parallel", "parallel", "parallel", "reduction", "reduction"]} : (tensor<2x5x4xf64>, tensor<f64>, tensor<2x2xf64>), (tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2x2x2xf64>) -> tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64, [[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V12]], [[V14]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V9]], [[V16]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V8]], [[V11]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V15]], [[V18]] : i1
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V17]], [[V19]] : i1
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.select [[V20]], [[V8]], [[V11]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V9]], [[V22]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.select [[V23]], [[V24]], [[V12]] : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V20]], [[V10]], [[V13]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V21]], [[V25]], [[V26]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x2x2x2x2xf64>} : tensor<2x2x2x2x2xf64>
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[V7]], [[V27]]) init([[V28]]) {bounds = array<i64: 2, 2, 2, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel"]} : (tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2x2xf64>), (tensor<2x2x2x2x2xf64>) -> tensor<2x2x2x2x2xf64> {
// CHECK-NEXT:    ^bb0([[V30:%[a-zA-Z0-9_.$-]+]]: f64, [[V31:%[a-zA-Z0-9_.$-]+]]: f64, [[V32:%[a-zA-Z0-9_.$-]+]]: f64, [[V33:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V31]], [[V32]] : f64
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V33]], [[V30]] : f64
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = arith.select [[V34]], [[V35]], [[V33]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V36]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = tlir.reshape [[V29]] : (tensor<2x2x2x2x2xf64>) -> tensor<2x4x4xf64>
// CHECK-NEXT:    [[V38:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V37]] {low = array<i64: 0, 0, 0>, high = array<i64: 0, 1, 0>, interior = array<i64: 0, 0, 0>} : (tensor<2x4x4xf64>) -> tensor<2x5x4xf64>
// CHECK-NEXT:    func.return [[Y]], [[V38]] : tensor<2x2x2xf64>, tensor<2x5x4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x5x4xf64>) -> tensor<2x2x2xf64> {
  %y = tlir.max_pool %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x5x4xf64>) -> tensor<2x2x2xf64>
  func.return %y : tensor<2x2x2xf64>
}
