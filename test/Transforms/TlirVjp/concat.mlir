// concat: each operand's slice of g.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x1xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<2x2xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x2xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.concat [[A]], [[B]] axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x1xf64>} : tensor<2x1xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V0]]) {bounds = array<i64: 2, 1>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>), (tensor<2x1xf64>) -> tensor<2x1xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V2]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[DY0]]) init([[V4]]) {bounds = array<i64: 2, 2>, maps = [affine_map<(d0, d1) -> (d0, (d1 + 1))>], iterators = ["parallel", "parallel"]} : (tensor<2x3xf64>), (tensor<2x2xf64>) -> tensor<2x2xf64> {
// CHECK-NEXT:    ^bb0([[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    tlir_ad.yield [[V6]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V1]], [[V5]] : tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x2xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x1xf64>, %b: tensor<2x2xf64>) -> tensor<2x3xf64> {
  %y = tlir.concat %a, %b axis = 1 : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
  func.return %y : tensor<2x3xf64>
}
