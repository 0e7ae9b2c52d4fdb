// sigmoid: x > 0: (1, 0) / (1 + exp(-x)) on duals; else exp(x) / (1 + exp(x)), both by the
// quotient rule (not s(1-s)·dx).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.sigmoid [[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f32, [[V2:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V1]] : f32
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V2]] : f32
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = math.exp [[V5]] : f32
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V6]] : f32
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V7]] : f32
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V8]] : f32
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V10]], [[V10]] : f32
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[V10]] : f32
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V12]] : f32
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V14]], [[V15]] : f32
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V16]], [[V13]] : f32
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = math.exp [[V1]] : f32
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V2]] : f32
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V20]], [[V18]] : f32
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V22]], [[V19]] : f32
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V21]], [[V21]] : f32
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V19]], [[V21]] : f32
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V18]], [[V23]] : f32
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V25]], [[V26]] : f32
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V27]], [[V24]] : f32
// CHECK-NEXT:    [[V29:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V29]] : f32
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.select [[V30]], [[V17]], [[V28]] : f32
// CHECK-NEXT:    tlir_ad.yield [[V31]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tlir.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
