// rand_uniform: random numbers are constants: the tangent is +0.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[U:%[a-zA-Z0-9_.$-]+]] = tlir.rand_uniform {seed = 7 : i64, node_id = 1 : i64} : tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[U]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]], [[U]], [[V0]]) : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V5]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V7]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V1]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %u = tlir.rand_uniform {seed = 7 : i64, node_id = 1 : i64} : tensor<4xf64>
  %y = tlir.mul_elem %x, %u : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
