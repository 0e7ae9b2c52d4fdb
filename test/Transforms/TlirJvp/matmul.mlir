// matmul: per output, a fold from +0 over k of ((dA·B) + (A·dB)), batch broadcast as the forward.
// RUN: tlir-opt %s -p tlir-jvp | filecheck %s

// CHECK-LABEL: func.func @main_jvp
// CHECK-SAME:    ([[A:%[a-zA-Z0-9_.$-]+]]: tensor<2x1x2x3xf64>, [[B:%[a-zA-Z0-9_.$-]+]]: tensor<3x3x4xf64>, [[DA:%[a-zA-Z0-9_.$-]+]]: tensor<2x1x2x3xf64>, [[DB:%[a-zA-Z0-9_.$-]+]]: tensor<3x3x4xf64>) -> (tensor<2x3x2x4xf64>, tensor<2x3x2x4xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.matmul [[A]], [[B]] : (tensor<2x1x2x3xf64>, tensor<3x3x4xf64>) -> tensor<2x3x2x4xf64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2x3x2x4xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir_ad.fold ins([[A]], [[DA]], [[B]], [[DB]]) init([[V1]]) {bounds = array<i64: 2, 3, 2, 4, 3>, maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>], iterators = ["parallel", "parallel", "parallel", "parallel", "reduction"]} : (tensor<2x1x2x3xf64>, tensor<2x1x2x3xf64>, tensor<3x3x4xf64>, tensor<3x3x4xf64>), (tensor<2x3x2x4xf64>) -> tensor<2x3x2x4xf64> {
// CHECK-NEXT:    ^bb0([[V3:%[a-zA-Z0-9_.$-]+]]: f64, [[V4:%[a-zA-Z0-9_.$-]+]]: f64, [[V5:%[a-zA-Z0-9_.$-]+]]: f64, [[V6:%[a-zA-Z0-9_.$-]+]]: f64, [[V7:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[V5]] : f64
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V3]], [[V6]] : f64
// CHECK-NEXT:    [[V10:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V8]], [[V9]] : f64
// CHECK-NEXT:    [[V11:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V7]], [[V10]] : f64
// CHECK-NEXT:    tlir_ad.yield [[V11]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[Y]], [[V2]] : tensor<2x3x2x4xf64>, tensor<2x3x2x4xf64>
// CHECK-NEXT:  }

func.func @main(%a: tensor<2x1x2x3xf64>, %b: tensor<3x3x4xf64>) -> tensor<2x3x2x4xf64> {
  %y = tlir.matmul %a, %b : (tensor<2x1x2x3xf64>, tensor<3x3x4xf64>) -> tensor<2x3x2x4xf64>
  func.return %y : tensor<2x3x2x4xf64>
}
