// mul_elem: (da·b) + (a·db): the left operand's term first, added last.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[DA:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.mul_elem [[A]], [[B]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[A]], [[DA]], [[B]], [[DB]]) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f32, [[V2:%[a-zA-Z0-9_.$-]+]]: f32, [[V3:%[a-zA-Z0-9_.$-]+]]: f32, [[V4:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V3]] : f32
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V1]], [[V4]] : f32
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[V6]] : f32
// CHECK-NEXT:    tlir_ad.yield [[V7]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }

func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = tlir.mul_elem %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
