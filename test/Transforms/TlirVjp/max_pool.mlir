// max_pool: each output's g is added to its first maximal real cell, outputs in row-major order (a
// fold per input position over the cells, last to first). The winner fold runs in the forward
// copy: its first result, the first maximal real cell's value, is the pool's value.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x4xf64>) {
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[X]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<2x4xf64>} : tensor<2x4xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V1]] {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>} : (tensor<2x4xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V4]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V6]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V8]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]], [[V11:%[a-zA-Z0-9_.$-]+]], [[V12:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V0]], [[V2]], [[V3]]) init([[V5]], [[V7]], [[V9]]) {bounds = array<i64: 2, 3, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>, affine_map<(d0, d1, d2) -> (d0, ((d1 * 2) + d2))>, affine_map<(d0, d1, d2) -> (d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x6xf64>, tensor<2x6xf64>, tensor<2xf64>), (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64, [[V15:%[a-zA-Z0-9_.$-]+]]: f64, [[V16:%[a-zA-Z0-9_.$-]+]]: f64, [[V17:%[a-zA-Z0-9_.$-]+]]: f64, [[V18:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V17]], [[V19]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V14]], [[V21]] : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V13]], [[V16]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V20]], [[V23]] : i1
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V22]], [[V24]] : i1
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V25]], [[V13]], [[V16]] : f64
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V14]], [[V27]] : f64
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.select [[V28]], [[V29]], [[V17]] : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.select [[V25]], [[V15]], [[V18]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V26]], [[V30]], [[V31]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DY0]] {low = array<i64: 0, 1>, high = array<i64: 0, 0>, interior = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V12]] {low = array<i64: 0, 1>, high = array<i64: 0, 0>, interior = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[2.000000e+00, 1.000000e+00]> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V35:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V36:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V35]] : (tensor<f64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V37:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V32]], [[V33]], [[V34]]) init([[V36]]) {bounds = array<i64: 2, 4, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, ((d1 + d2) + 1))>, affine_map<(d0, d1, d2) -> (d0, ((d1 + d2) + 1))>, affine_map<(d0, d1, d2) -> (d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x6xf64>, tensor<2x6xf64>, tensor<2xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// CHECK-NEXT:    ^bb0([[V38:%[a-zA-Z0-9_.$-]+]]: f64, [[V39:%[a-zA-Z0-9_.$-]+]]: f64, [[V40:%[a-zA-Z0-9_.$-]+]]: f64, [[V41:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V42:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V39]], [[V40]] : f64
// CHECK-NEXT:    [[V43:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V41]], [[V38]] : f64
// CHECK-NEXT:    [[V44:%[a-zA-Z0-9_.$-]+]] = arith.select [[V42]], [[V43]], [[V41]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V44]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V37]] : tensor<2x3xf64>, tensor<2x4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x4xf64>) -> tensor<2x3xf64> {
  %y = tlir.max_pool %x {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
