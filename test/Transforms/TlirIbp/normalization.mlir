// layernorm without parameters on Float: every input end finite (a flag), then the
// constant box [-R, R] with R = nextUp(sqrt(4)) = 2.0000000000000004.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<1x4xf64>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<1x4xf64>) -> (tensor<1x4xf64>, tensor<1x4xf64>, tensor<f64>) {
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X_LO]], [[X_HI]]) : (tensor<1x4xf64>, tensor<1x4xf64>) -> tensor<1x4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uge, [[V2]], [[V1]] : f64
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V1]], [[V1]] : f64
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V4]], [[V5]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.subf [[V2]], [[V2]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V7]], [[V8]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V6]], [[V9]] : i1
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V3]], [[V10]] : i1
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V11]], [[V12]], [[V13]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V14]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<-2.0000000000000004> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V15]] : (tensor<f64>) -> tensor<1x4xf64>
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<2.0000000000000004> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V17]] : (tensor<f64>) -> tensor<1x4xf64>
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[V0]] : (tensor<1x4xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V19]]) : (tensor<f64>) -> tensor<f64> {
// CHECK-NEXT:    ^bb0([[V21:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V21]], [[V23]] : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V24]], [[V25]], [[V22]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V26]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[V16]], [[V18]], [[V20]] : tensor<1x4xf64>, tensor<1x4xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<1x4xf64>) -> tensor<1x4xf64> {
  %y = tlir.layernorm %x {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<1x4xf64>) -> tensor<1x4xf64>
  func.return %y : tensor<1x4xf64>
}
