// tlir-opt reports one line `file:line:col: error: message`, exits 1, and
// writes nothing with -o when it fails.
// RUN: not tlir-opt %s 2>&1 | filecheck %s
// RUN: not tlir-opt %s -o %t.out 2>&1 | filecheck %s
// RUN: not ls %t.out
// RUN: echo 'func.func @f( {' | not tlir-opt 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: not tlir-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tlir-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: tlir-opt --help | filecheck %s --check-prefix=HELP

// CHECK: tlir-opt-errors.mlir:[[# @LINE + 3]]:3: error: tlir.softmax: axis 3 is out of range for rank 2
// CHECK-NOT: Traceback
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tlir.softmax %x axis = 3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// PARSE: stdin:1:15: error: Expected argument or type
// MISSING: tlir-opt-errors.mlir.missing: error: cannot read the file: No such file or directory
// PASS: tlir-opt: error: bad pass pipeline {{.*}}no-such-pass
// HELP: usage: tlir-opt

// The help lists tlir's passes (on one line: COLUMNS keeps argparse from wrapping).
// RUN: env COLUMNS=100000 tlir-opt --help | filecheck %s --check-prefix=PASSES
// PASSES-DAG: convert-tlir-to-linalg
// PASSES-DAG: tlir-bufferize
// PASSES-DAG: tlir-to-llvm
