// const: +0 unless seeded: with params=true each parameter's tangent is an argument of @main_jvp.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s
// RUN: tlir-opt %s -p 'tlir-jvp{params=true}' | filecheck %s --check-prefix=PARAMS

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[1.000000e+00, -2.000000e+00, 5.000000e-01, 3.000000e+00]> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[W]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]], [[W]], [[V0]]) : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V5]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V6]], [[V7]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V8]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V1]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

// PARAMS-LABEL: func.func @main_jvp
// PARAMS-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DW:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// PARAMS-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<[1.000000e+00, -2.000000e+00, 5.000000e-01, 3.000000e+00]> : tensor<4xf64>} : tensor<4xf64>
// PARAMS-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[X]], [[W]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// PARAMS-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]], [[W]], [[DW]]) : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// PARAMS-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64):
// PARAMS-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V3]] : f64
// PARAMS-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V1]], [[V4]] : f64
// PARAMS-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[V6]] : f64
// PARAMS-NEXT:    tlir_ad.yield [[V7]] : f64
// PARAMS-NEXT:    }
// PARAMS-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf64>, tensor<4xf64>
// PARAMS-NEXT:  }

func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %w = tlir.const {value = dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf64>} : tensor<4xf64>
  %y = tlir.mul_elem %x, %w : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
