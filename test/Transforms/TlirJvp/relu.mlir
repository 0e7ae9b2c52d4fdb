// relu: x == 0 (either sign) is the literal zero dual; else max(x, 0) on duals: dx for x > 0, 0
// for x < 0, ½·dx + ½·0 for NaN.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f32, [[V2:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V1]], [[V3]] : f32
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V6]] : f32
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V6]], [[V1]] : f32
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V10]], [[V2]] : f32
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V10]], [[V7]] : f32
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V11]], [[V12]] : f32
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V7]], [[V13]] : f32
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.select [[V8]], [[V2]], [[V14]] : f32
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.select [[V4]], [[V5]], [[V15]] : f32
// CHECK-NEXT:    tlir_ad.yield [[V16]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tlir.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
