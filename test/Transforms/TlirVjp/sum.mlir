// sum: g broadcast to the input shape.
// RUN: tlir-opt %s -p tlir-vjp | filecheck %s

// CHECK-LABEL: func.func @main_vjp
// CHECK-SAME:    ([[X:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf64>, [[DY0:%[a-zA-Z0-9_.$-]+]]: tensor<f64>) -> (tensor<f64>, tensor<2x3xf64>) {
// CHECK-NEXT:    [[Y:%[a-zA-Z0-9_.$-]+]] = tlir.sum [[X]] : (tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT:    [[V0:%[a-zA-Z0-9_.$-]+]] = tlir.broadcast_to [[DY0]] : (tensor<f64>) -> tensor<2x3xf64>
// CHECK-NEXT:    func.return [[Y]], [[V0]] : tensor<f64>, tensor<2x3xf64>
// CHECK-NEXT:  }

func.func @main(%x: tensor<2x3xf64>) -> tensor<f64> {
  %y = tlir.sum %x : (tensor<2x3xf64>) -> tensor<f64>
  func.return %y : tensor<f64>
}
