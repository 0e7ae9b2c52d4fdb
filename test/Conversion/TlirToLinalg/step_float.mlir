// tlir_ad.step_down / step_up (RD(x - m), RU(x + m)) without AVX-512's rounding
// in force (the pass's default): next_down / next_up on the bits, then the two
// values where they differ put back: the far infinity keeps the input (step_down:
// +inf, step_up: -inf), and the step from the smallest subnormal of the other
// sign gives a zero of the direction's sign (step_down(m) = -0, step_up(-m) = +0).
// RUN: tlir-opt %s -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @down
// CHECK:         [[BITS:%[a-zA-Z0-9_.$-]+]] = arith.bitcast [[X:%[a-zA-Z0-9_.$-]+]] : f64 to i64
// CHECK:         [[NEXT:%[a-zA-Z0-9_.$-]+]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    [[INF:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    [[IS_INF:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[X]], [[INF]] : f64
// CHECK-NEXT:    [[KEPT:%[a-zA-Z0-9_.$-]+]] = arith.select [[IS_INF]], [[X]], [[NEXT]] : f64
// CHECK-NEXT:    [[TINY:%[a-zA-Z0-9_.$-]+]] = arith.constant 4.940660e-324 : f64
// CHECK-NEXT:    [[IS_TINY:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[X]], [[TINY]] : f64
// CHECK-NEXT:    [[ZERO:%[a-zA-Z0-9_.$-]+]] = arith.constant -0.000000e+00 : f64
// CHECK-NEXT:    [[R:%[a-zA-Z0-9_.$-]+]] = arith.select [[IS_TINY]], [[ZERO]], [[KEPT]] : f64
// CHECK-NEXT:    linalg.yield [[R]] : f64
func.func @down(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir_ad.map(%x) : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%a: f64):
    %d = tlir_ad.step_down %a : f64
    tlir_ad.yield %d : f64
  }
  func.return %y : tensor<2xf64>
}

// CHECK-LABEL: func.func @up
// CHECK:         [[NEXT:%[a-zA-Z0-9_.$-]+]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:    [[INF:%[a-zA-Z0-9_.$-]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    [[IS_INF:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[X:%[a-zA-Z0-9_.$-]+]], [[INF]] : f32
// CHECK-NEXT:    [[KEPT:%[a-zA-Z0-9_.$-]+]] = arith.select [[IS_INF]], [[X]], [[NEXT]] : f32
// CHECK-NEXT:    [[TINY:%[a-zA-Z0-9_.$-]+]] = arith.constant -1.401300e-45 : f32
// CHECK-NEXT:    [[IS_TINY:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[X]], [[TINY]] : f32
// CHECK-NEXT:    [[ZERO:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[R:%[a-zA-Z0-9_.$-]+]] = arith.select [[IS_TINY]], [[ZERO]], [[KEPT]] : f32
// CHECK-NEXT:    linalg.yield [[R]] : f32
func.func @up(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tlir_ad.map(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: f32):
    %u = tlir_ad.step_up %a : f32
    tlir_ad.yield %u : f32
  }
  func.return %y : tensor<2xf32>
}
