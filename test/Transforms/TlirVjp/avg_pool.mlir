// avg_pool: each output adds g / kernel volume to each real cell of its window, outputs in row-
// major order.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.avg_pool [[X]] {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<2x3xf64>} : tensor<2x3xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[DY0]] {low = array<i64: 0, 1>, high = array<i64: 0, 0>, interior = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.pad [[V0]] {low = array<i64: 0, 1>, high = array<i64: 0, 0>, interior = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<2x6xf64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[2.000000e+00, 1.000000e+00]> : tensor<2xf64>} : tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V4]] : (tensor<f64>) -> tensor<2x4xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[V1]], [[V2]], [[V3]]) init([[V5]]) {bounds = array<i64: 2, 4, 2>, maps = [affine_map<(d0, d1, d2) -> (d0, ((d1 + d2) + 1))>, affine_map<(d0, d1, d2) -> (d0, ((d1 + d2) + 1))>, affine_map<(d0, d1, d2) -> (d2)>], iterators = ["parallel", "parallel", "reduction"]} : (tensor<2x6xf64>, tensor<2x6xf64>, tensor<2xf64>), (tensor<2x4xf64>) -> tensor<2x4xf64> {
// CHECK-NEXT:    ^bb0([[V7:%[a-zA-Z0-9_.$-]+]]: f64, [[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64, [[V10:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V8]], [[V11]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V7]], [[V13]] : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V10]], [[V14]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.select [[V12]], [[V15]], [[V10]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V16]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V6]] : tensor<2x3xf64>, tensor<2x4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x4xf64>) -> tensor<2x3xf64> {
  %y = tlir.avg_pool %x {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
