// softplus: x > 0: dx + (0 + exp(-x)·(-dx)) / (1 + exp(-x)); else (0 + exp(x)·dx) / (1 + exp(x)).
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>, [[DX:%[a-zA-Z0-9_.$-]+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.softplus [[X]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X]], [[DX]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
// CHECK-NEXT:    ^bb0([[V1:%[a-zA-Z0-9_.$-]+]]: f64, [[V2:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V1]] : f64
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V2]] : f64
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = math.exp [[V3]] : f64
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V5]], [[V4]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V5]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V9]], [[V6]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V10]], [[V8]] : f64
// CHECK-NEXT:    [[V12:%[a-zA-Z0-9_.$-]+]] = math.exp [[V1]] : f64
// CHECK-NEXT:    [[V13:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V12]], [[V2]] : f64
// CHECK-NEXT:    [[V14:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V14]], [[V12]] : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V16]], [[V13]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = arith.divf [[V17]], [[V15]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[V1]], [[V19]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V2]], [[V11]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.select [[V20]], [[V21]], [[V18]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V22]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<4xf64>, tensor<4xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = tlir.softplus %x : (tensor<4xf64>) -> tensor<4xf64>
  func.return %y : tensor<4xf64>
}
