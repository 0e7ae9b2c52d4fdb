// concat: each operand's slice of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x1xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2x2xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x2xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.concat [[A]], [[B]] axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x1xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V1]]) {bounds = array<i64: 2, 1>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>), (tensor<2x1xf64>) -> tensor<2x1xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V3]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V5]] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V6]]) {bounds = array<i64: 2, 2>, maps = [affine_map<(d0, d1) -> (d0, (d1 + 1))>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>), (tensor<2x2xf64>) -> tensor<2x2xf64> {
// CHECK-NEXT:    ^bb0([[V8:%[a-zA-Z0-9_.$-]+]]: f64, [[V9:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V8]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V2]], [[V7]] : tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x2xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x1xf64>, %b: tensor<2x2xf64>) -> tensor<2x3xf64> {
  %y = tlir.concat %a, %b axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
