// tlir-form-kernels{max_ops=N}: a kernel holds at most N ops; a longer chain
// becomes several kernels, the first holding what is left over, each reading
// the previous one's result.
// RUN: tlir-opt %s -p 'tlir-form-kernels{max_ops=2}' | filecheck %s

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>)
// CHECK-NEXT:    %[[A:.*]] = func.call @chain_k0(%[[X]]) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[B:.*]] = func.call @chain_k1(%[[A]]) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[C:.*]] = func.call @chain_k2(%[[B]], %[[X]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-LABEL: func.func private @chain_k0
// CHECK-NEXT:    tlir.relu
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @chain_k1
// CHECK-NEXT:    tlir.exp
// CHECK-NEXT:    tlir.abs
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @chain_k2
// CHECK-NEXT:    tlir.tanh
// CHECK-NEXT:    tlir.add
// CHECK-NEXT:    func.return
func.func @chain(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tlir.relu %x : (tensor<4xf64>) -> tensor<4xf64>
  %1 = tlir.exp %0 : (tensor<4xf64>) -> tensor<4xf64>
  %2 = tlir.abs %1 : (tensor<4xf64>) -> tensor<4xf64>
  %3 = tlir.tanh %2 : (tensor<4xf64>) -> tensor<4xf64>
  %4 = tlir.add %3, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %4 : tensor<4xf64>
}
