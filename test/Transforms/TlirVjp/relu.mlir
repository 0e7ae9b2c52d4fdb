// relu: (x > 0 ? 1 : 0)·g: relu'(0) = 0.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DY0]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f32, [[V2:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V3]] : f32
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.select [[V4]], [[V5]], [[V6]] : f32
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V2]] : f32
// CHECK-NEXT:    tlir_ad.yield [[V8]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tlir.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
