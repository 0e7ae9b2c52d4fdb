// Ops without a derivative rule are one-line errors at the op (in a callee: at
// the tlir.custom that calls it); an unknown wrt is an error of the pass.
// RUN: tlir-opt %s --split-input-file --verify-diagnostics -p tlir-jvp 2>&1 | filecheck %s
// RUN: tlir-opt %s --split-input-file --verify-diagnostics -p tlir-vjp 2>&1 | filecheck %s --check-prefix=VJP
// RUN: not tlir-opt %s --split-input-file -p 'tlir-vjp{wrt=weights}' 2>&1 | filecheck %s --check-prefix=WRT

// CHECK: autodiff-errors.mlir:10:3: error: tlir-jvp: 'arith.addf' has no derivative rule
// VJP:   autodiff-errors.mlir:10:3: error: tlir-vjp: 'arith.addf' has no derivative rule
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = arith.addf %x, %x : tensor<3xf64>
  func.return %y : tensor<3xf64>
}

// -----

// CHECK: autodiff-errors.mlir:19:3: error: tlir-jvp: cannot differentiate 'tlir.custom' @kernel: its callee uses 'arith.mulf', which has no derivative rule
// VJP:   autodiff-errors.mlir:19:3: error: tlir-vjp: cannot differentiate 'tlir.custom' @kernel: its callee uses 'arith.mulf', which has no derivative rule
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = tlir.custom @kernel(%x) {name = "square"} : (tensor<3xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
func.func @kernel(%u: tensor<3xf64>) -> tensor<3xf64> {
  %s = arith.mulf %u, %u : tensor<3xf64>
  func.return %s : tensor<3xf64>
}

// WRT: tlir-vjp: error: wrt must be one of inputs, params, all, got 'weights'
