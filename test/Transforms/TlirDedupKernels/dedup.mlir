// tlir-dedup-kernels: kernels with the same canonical text (ops, properties,
// operand and result types; never names, locations or the constants that
// reach them as arguments) become one function named `k_<hash>`, and every
// call is retargeted to it. Kernels that differ in any property or type stay
// apart.
// RUN: tlir-opt %s -p tlir-form-kernels,tlir-dedup-kernels | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[A:.*]] = func.call @[[RELU64:k_[0-9a-f]+]](%{{.*}}) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[B:.*]] = func.call @[[RELU64]](%{{.*}}) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[C:.*]] = func.call @[[RELU32:k_[0-9a-f]+]](%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = func.call @[[SM1:k_[0-9a-f]+]](%{{.*}}) : (tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK-NEXT:    %[[E:.*]] = func.call @[[SM0:k_[0-9a-f]+]](%{{.*}}) : (tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK-NEXT:    %[[F:.*]] = func.call @[[SM1]](%{{.*}}) : (tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK-NEXT:    %[[G:.*]] = func.call @[[R3:k_[0-9a-f]+]]() : () -> tensor<4xf64>
// CHECK-NEXT:    %[[H:.*]] = func.call @[[R4:k_[0-9a-f]+]]() : () -> tensor<4xf64>
// CHECK-NEXT:    func.return
// Six distinct kernels remain, one of each.
// CHECK-COUNT-6: func.func private @k_
// CHECK-NOT:     func.func private
func.func @main(%x: tensor<4xf64>, %y: tensor<4xf32>, %m: tensor<2x2xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf32>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = tlir.relu %x : (tensor<4xf64>) -> tensor<4xf64>
  %1 = tlir.relu %x : (tensor<4xf64>) -> tensor<4xf64>
  %2 = tlir.relu %y : (tensor<4xf32>) -> tensor<4xf32>
  %3 = tlir.softmax %m axis = 1 : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %4 = tlir.softmax %m axis = 0 : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %5 = tlir.softmax %3 axis = 1 : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %6 = tlir.rand_uniform {seed = 7 : i64, node_id = 3 : i64} : tensor<4xf64>
  %7 = tlir.rand_uniform {seed = 7 : i64, node_id = 4 : i64} : tensor<4xf64>
  func.return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf64>, tensor<4xf64>, tensor<4xf32>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<4xf64>, tensor<4xf64>
}
