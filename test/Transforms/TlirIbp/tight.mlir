// The tight rules (tlir-ibp{rules=tight}): add keeps the rounded sum where
// TwoSum's error term is finite and on the right side (else one next_down /
// next_up step); mul_elem learns the sign of each product's error with an FMA
// (fma(a, b, -p)); exp is the C library's exp widened by glibc's error bound
// plus one (2 steps for exp, 3 for tanh), exp(0) = 1 exactly, the lower end
// floored at 0; a NaN end sets the failure flag ("ord").
// RUN: tlir-opt %s -p 'tlir-ibp{rules=tight}' | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK:         tlir_ad.map
// CHECK:         [[S:%[a-zA-Z0-9_.$-]+]] = arith.addf [[A:%[a-zA-Z0-9_.$-]+]], [[B:%[a-zA-Z0-9_.$-]+]] : f64
// CHECK-NEXT:    [[T:%[a-zA-Z0-9_.$-]+]] = arith.subf [[S]], [[A]] : f64
// CHECK-NEXT:    [[U:%[a-zA-Z0-9_.$-]+]] = arith.subf [[S]], [[T]] : f64
// CHECK-NEXT:    [[V:%[a-zA-Z0-9_.$-]+]] = arith.subf [[A]], [[U]] : f64
// CHECK-NEXT:    [[W:%[a-zA-Z0-9_.$-]+]] = arith.subf [[B]], [[T]] : f64
// CHECK-NEXT:    [[E:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V]], [[W]] : f64
// CHECK:         arith.cmpf oge, [[E]]
// CHECK:         [[STEP:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[S]] : f64
// CHECK-NEXT:    arith.select {{.*}}, [[S]], [[STEP]] : f64
// CHECK:         tlir_ad.yield
// CHECK:         tlir_ad.map
// CHECK:         [[P:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[X:%[a-zA-Z0-9_.$-]+]], [[Y:%[a-zA-Z0-9_.$-]+]] : f64
// CHECK-NEXT:    [[N:%[a-zA-Z0-9_.$-]+]] = arith.negf [[P]] : f64
// CHECK-NEXT:    math.fma [[X]], [[Y]], [[N]] : f64
// CHECK:         tlir_ad.yield
// CHECK:         tlir_ad.map
// CHECK:         [[EXP:%[a-zA-Z0-9_.$-]+]] = math.exp [[L:%[a-zA-Z0-9_.$-]+]] : f64
// CHECK-NEXT:    [[DOWN1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[EXP]] : f64
// CHECK-NEXT:    [[DOWN2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[DOWN1]] : f64
// CHECK:         arith.cmpf oeq, [[L]]
// CHECK:         math.exp
// CHECK-NEXT:    tlir_ad.next_up
// CHECK-NEXT:    tlir_ad.next_up
// CHECK-NOT:     tlir_ad.next_up
// CHECK:         arith.cmpf ord
// CHECK:         tlir_ad.yield
// CHECK:         math.tanh
// CHECK-NEXT:    tlir_ad.next_down
// CHECK-NEXT:    tlir_ad.next_down
// CHECK-NEXT:    tlir_ad.next_down
// CHECK-NOT:     tlir_ad.next_down
// CHECK:         math.tanh

func.func @main(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %s = tlir.add %x, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %p = tlir.mul_elem %s, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %e = tlir.exp %p : (tensor<3xf64>) -> tensor<3xf64>
  %t = tlir.tanh %e : (tensor<3xf64>) -> tensor<3xf64>
  func.return %t : tensor<3xf64>
}
