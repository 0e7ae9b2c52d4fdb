// inv: (1, 0) / (x, dx) by the quotient rule (docs/autodiff.md#d1-quotient-rule): q = 1/x, den = x·x, num = (0·x) - (1·dx),
// num/den.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.inv [[X]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V1]], [[V1]] : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[V1]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V2]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V6]], [[V7]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V8]], [[V5]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V9]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = tlir.inv %x : (tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
