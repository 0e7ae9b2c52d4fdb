// reduce_sum: g repeated along the reduced axis.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>) -> (tensor<2xf64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.reduce_sum [[X]] axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V1]]) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0)>], iterators = ["parallel", "parallel"]} : (tensor<2xf64>), (tensor<2x3xf64>) -> tensor<2x3xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V3]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V2]] : tensor<2xf64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %y = tlir.reduce_sum %x axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
