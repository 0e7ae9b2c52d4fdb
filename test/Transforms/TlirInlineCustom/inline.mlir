// tlir-inline-custom: every tlir.custom is replaced by its callee's body
// (callees are tlir functions; nested calls are inlined too).
// RUN: tlir-opt %s --split-input-file --verify-diagnostics -p tlir-inline-custom | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>)
// CHECK-NEXT:    %[[A:.*]] = tlir.exp %[[X]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[B:.*]] = tlir.relu %[[A]] : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[C:.*]] = tlir.add %[[B]], %[[X]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf64>
// CHECK-LABEL: func.func @outer
// CHECK-NEXT:    tlir.exp
// CHECK-NEXT:    tlir.relu
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tlir.custom @outer(%x) {name = "outer"} : (tensor<4xf64>) -> tensor<4xf64>
  %1 = tlir.add %0, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %1 : tensor<4xf64>
}
func.func @outer(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tlir.exp %a : (tensor<4xf64>) -> tensor<4xf64>
  %1 = tlir.custom @inner(%0) {name = "inner"} : (tensor<4xf64>) -> tensor<4xf64>
  func.return %1 : tensor<4xf64>
}
func.func @inner(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tlir.relu %a : (tensor<4xf64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}

// -----

// A callee that is not tlir cannot be compiled.
// CHECK: inline.mlir:[[# @LINE + 2]]:3: error: tlir.custom: callee @negate holds 'arith.negf'; only tlir ops can be compiled
func.func @bad(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tlir.custom @negate(%x) {name = "negate"} : (tensor<4xf64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}
func.func @negate(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = arith.negf %a : tensor<4xf64>
  func.return %0 : tensor<4xf64>
}
