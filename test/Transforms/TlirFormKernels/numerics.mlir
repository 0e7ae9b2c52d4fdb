// tlir-form-kernels{numerics=fma}: every kernel is marked `tlir.numerics = "fma"`,
// which the contraction kernels read to fuse each multiply-add of their folds
// (opt-in, not TorchLean's rounding); the default, exact, marks nothing.
// RUN: tlir-opt %s -p 'tlir-form-kernels{numerics=fma}' | filecheck %s
// RUN: tlir-opt %s -p tlir-form-kernels | filecheck %s --check-prefix=EXACT
// RUN: not tlir-opt %s -p 'tlir-form-kernels{numerics=fast}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @layer
// CHECK:       func.call @layer_k0
// CHECK-LABEL: func.func private @layer_k0
// CHECK-SAME:    attributes {tlir.kernel, tlir.numerics = "fma"}
// CHECK-NEXT:    tlir.matmul
// CHECK-NEXT:    tlir.relu
// EXACT-LABEL: func.func private @layer_k0
// EXACT-SAME:    attributes {tlir.kernel}
// BAD: tlir-form-kernels: error: numerics must be one of exact, fma, got 'fast'
func.func @layer(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %y = tlir.matmul %a, %b : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %r = tlir.relu %y : (tensor<2x4xf64>) -> tensor<2x4xf64>
  func.return %r : tensor<2x4xf64>
}
