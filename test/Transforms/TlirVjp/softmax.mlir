// softmax: s = fold of g·y over the axis from +0; dx = y·(g - s) with y the forward result.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.softmax [[X]] axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[Y]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]} : (tensor<2x3xf64>, tensor<2x3xf64>), (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[V6]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V7]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V8]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]], [[Y]], [[V2]]) init([[V9]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V11:%[a-zA-Z0-9_.$-]+]]: f64, [[V12:%[a-zA-Z0-9_.$-]+]]: f64, [[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V11]], [[V13]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V12]], [[V15]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V16]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V10]] : tensor<2x3xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = tlir.softmax %x axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
