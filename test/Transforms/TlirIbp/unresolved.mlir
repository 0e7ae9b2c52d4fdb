// exp has no interval rule on Float: its box and its readers' are NaN constants and
// the status of the output is exp's index (0) at compile time; softmax reads only
// the output shape but needs a resolved operand, so it is unresolved too; the
// rand_uniform reads nothing: [0, 1], status +inf.
// RUN: tlir-opt %s -p tlir-ibp | filecheck %s

// CHECK-LABEL: func.func @main_ibp
// CHECK-SAME:    ([[X_LO:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>, [[X_HI:%[a-zA-Z0-9_.$-]+]]: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<f64>, tensor<f64>) {
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7ff8000000000000> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V1:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V0]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V2:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7ff8000000000000> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V3:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V2]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V4:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V5:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V4]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V6:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<1.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V7:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[V6]] : (tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:    [[V8:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    [[V9:%[a-zA-Z0-9_.$-]+]] = tlir.const {value = dense<0x7ff0000000000000> : tensor<f64>} : tensor<f64>
// CHECK-NEXT:    func.return [[V3]], [[V5]], [[V3]], [[V7]], [[V8]], [[V9]] : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<f64>, tensor<f64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %e = tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>
  %s = tlir.softmax %e axis = 0 : (tensor<2xf64>) -> tensor<2xf64>
  %r = tlir.rand_uniform {seed = 1 : i64, node_id = 2 : i64} : tensor<2xf64>
  func.return %s, %r : tensor<2xf64>, tensor<2xf64>
}
