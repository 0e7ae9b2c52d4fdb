// sub: g to a, 0 - g (not a negation) to b.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.sub [[A]], [[B]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[DY0]]) : (tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V2]], [[V1]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V3]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[DY0]], [[V0]] : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %y = tlir.sub %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
