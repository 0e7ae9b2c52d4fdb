// tlir_ad.next_up / next_down (TorchLean's nextUp / nextDown) expand into integer
// arithmetic on the bits, two compares and three integer ops: next_up steps the
// pattern -1 where x < 0 (-inf included), else, where x < inf (not NaN, not +inf,
// which keep the input), takes the pattern with the sign bit cleared plus 1 (so
// ±0 become 1, the smallest positive subnormal). next_down mirrors it: -1 where
// x > 0 (+inf included), else, where x > -inf, the pattern with the sign bit set
// plus 1 (±0 become 0x8000…0001 = -2^63 + 1 as i64; 0x80000001 as i32).
// RUN: tlir-opt %s -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @up
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2xf64>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins([[X]] : tensor<2xf64>) outs([[Y]] : tensor<2xf64>) {
// CHECK-NEXT:    ^bb0([[V0:%[a-zA-Z0-9_.$-]+]]: f64, [[V1:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = arith.bitcast [[V0]] : f64 to i64
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[V0]], [[V3]] : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[V0]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V2]], [[V7]] : i64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V8]], [[V9]] : i64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.select [[V6]], [[V10]], [[V2]] : i64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.subi [[V2]], [[V12]] : i64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V5]], [[V13]], [[V11]] : i64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.bitcast [[V14]] : i64 to f64
// CHECK-NEXT:    linalg.yield [[V15]] : f64
// CHECK-NEXT:    } -> tensor<2xf64>
// CHECK-NEXT:    func.return [[Y_1]] : tensor<2xf64>
// CHECK-NEXT:  }

func.func @up(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir_ad.map(%x) : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%a: f64):
    %u = tlir_ad.next_up %a : f64
    tlir_ad.yield %u : f64
  }
  func.return %y : tensor<2xf64>
}

// CHECK-LABEL: func.func @down
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    [[Y_1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins([[X]] : tensor<2xf32>) outs([[Y]] : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0([[V0:%[a-zA-Z0-9_.$-]+]]: f32, [[V1:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = arith.bitcast [[V0]] : f32 to i32
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V0]], [[V3]] : f32
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V0]], [[V4]] : f32
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V2]], [[V7]] : i32
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V8]], [[V9]] : i32
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.select [[V6]], [[V10]], [[V2]] : i32
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.subi [[V2]], [[V12]] : i32
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V5]], [[V13]], [[V11]] : i32
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.bitcast [[V14]] : i32 to f32
// CHECK-NEXT:    linalg.yield [[V15]] : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    func.return [[Y_1]] : tensor<2xf32>
// CHECK-NEXT:  }

func.func @down(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tlir_ad.map(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: f32):
    %d = tlir_ad.next_down %a : f32
    tlir_ad.yield %d : f32
  }
  func.return %y : tensor<2xf32>
}
