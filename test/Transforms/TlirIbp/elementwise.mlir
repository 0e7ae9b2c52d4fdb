// Elementwise rules: add is addDown of the lower ends and addUp of the upper ends
// (an addf then one next_down / next_up step); relu applies the forward op to
// each end; sqrt is a map returning the box and a 0/1 failure flag per coordinate
// (hi < 0), summed into the rank-0 flag that sets the output's status (its index, 2).
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[Y_LO:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>, [[Y_HI:%[a-zA-Z0-9_.$-]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<f64>) {
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]], [[V1:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[X_LO]], [[Y_LO]], [[X_HI]], [[Y_HI]]) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    ^bb0([[V2:%[a-zA-Z0-9_.$-]+]]: f64, [[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V2]], [[V3]] : f64
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V6]] : f64
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V4]], [[V5]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V8]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V7]], [[V9]] : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[R:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[V0]] : (tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    [[R_1:%[a-zA-Z0-9_.$-]+]] = tlir.relu [[V1]] : (tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]], [[V11:%[a-zA-Z0-9_.$-]+]], [[V12:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[R]], [[R_1]]) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
// CHECK-NEXT:    ^bb0([[V13:%[a-zA-Z0-9_.$-]+]]: f64, [[V14:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V15:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V16:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[V13]], [[V15]] : f64
// CHECK-NEXT:    [[V17:%[a-zA-Z0-9_.$-]+]] = arith.select [[V16]], [[V15]], [[V13]] : f64
// CHECK-NEXT:    [[V18:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V17]] : f64
// CHECK-NEXT:    [[V19:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_down [[V18]] : f64
// CHECK-NEXT:    [[V20:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V14]] : f64
// CHECK-NEXT:    [[V21:%[a-zA-Z0-9_.$-]+]] = tlir_ad.next_up [[V20]] : f64
// CHECK-NEXT:    [[V22:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V23:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uge, [[V14]], [[V22]] : f64
// CHECK-NEXT:    [[V24:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V25:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[V26:%[a-zA-Z0-9_.$-]+]] = arith.select [[V23]], [[V24]], [[V25]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V19]], [[V21]], [[V26]] : f64, f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[V27:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[V12]] : (tensor<3xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V28:%[a-zA-Z0-9_.$-]+]] = tlir_ad.map([[V27]]) : (tensor<f64>) -> tensor<f64> {
// CHECK-NEXT:    ^bb0([[V29:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V30:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    [[V31:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[V32:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V29]], [[V31]] : f64
// CHECK-NEXT:    [[V33:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    [[V34:%[a-zA-Z0-9_.$-]+]] = arith.select [[V32]], [[V33]], [[V30]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V34]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[V10]], [[V11]], [[V28]] : tensor<3xf64>, tensor<3xf64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %s = tlir.add %x, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r = tlir.relu %s : (tensor<3xf64>) -> tensor<3xf64>
  %q = tlir.sqrt %r : (tensor<3xf64>) -> tensor<3xf64>
  func.return %q : tensor<3xf64>
}
