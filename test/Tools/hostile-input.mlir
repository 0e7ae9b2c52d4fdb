// Hostile input to the tools: each gets one line `where: error: message` and a
// non-zero exit (exit code 1 and the single line are checked by test_hostile.py),
// never a traceback, a hang, a crash or a program run on the input's behalf.
// RUN: rm -rf %t && mkdir -p %t

// Malformed pass pipelines (xDSL raises them as BaseException).
// RUN: not tlir-opt %s -p ',' 2>&1 | filecheck %s --check-prefix=COMMA
// RUN: not tlir-opt %s -p 'convert-tlir-to-linalg{' 2>&1 | filecheck %s --check-prefix=BRACE
// COMMA: tlir-opt: error: bad pass pipeline ',': Expected pass name here (at column 1)
// COMMA-NOT: Traceback
// BRACE: tlir-opt: error: bad pass pipeline 'convert-tlir-to-linalg{': Expected argument name here (at column 24)
// BRACE-NOT: Traceback

// xDSL's mlir-opt pass would run the program its options name: not offered.
// RUN: cd %t && env XDSL_MLIR_OPT=sh not tlir-opt %s -p 'mlir-opt{executable="sh" arguments="-c","touch pwned; cat"}' 2>&1 | filecheck %s --check-prefix=MLIROPT
// RUN: not ls %t/pwned
// MLIROPT: tlir-opt: error: bad pass pipeline {{.*}}: unknown pass 'mlir-opt' (known passes: {{.*}})

// A compiled model may call only its own functions: @exit is a compile-time error.
// RUN: not tlir-run %S/Inputs/hostile/exit.mlir --input %S/Inputs/hostile/two.npy --no-cache 2>&1 | filecheck %s --check-prefix=EXIT
// EXIT: exit.mlir:4:3: error: 'func.call' op calls @exit, which the module does not define (a compiled model may call only its own functions)

// A 332-byte model asking for 80 GB: refused at its node, before any allocation.
// RUN: not tlir-run %S/Inputs/hostile/broadcast_exp_sum.json --input %S/Inputs/hostile/one.npy --no-cache 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not tlir-run %S/Inputs/hostile/broadcast_exp_sum.json --input %S/Inputs/hostile/one.npy --reference 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: env TLIR_MAX_TENSOR_BYTES=lots not tlir-run %s --input %S/Inputs/hostile/one.npy 2>&1 | filecheck %s --check-prefix=ENV
// HUGE: broadcast_exp_sum.json: node 1: error: 'tlir.broadcast_to' op: the tensor tensor<10000000000xf64> takes 74.5 GiB (80000000000 bytes), more than the limit of
// HUGE-NOT: Traceback
// ENV: TLIR_MAX_TENSOR_BYTES: error: must be a positive integer (bytes), got 'lots'

// An unterminated string literal of 40 characters (2^40 steps for xDSL 0.74's lexer).
// RUN: echo 'func.func @f() attributes {s = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa} {' | not tlir-opt 2>&1 | filecheck %s --check-prefix=STRING
// STRING: stdin:1:32: error: End of file reached before closing string literal.

// Argument errors: one line, not argparse's usage.
// RUN: not tlir-opt %s -t x86-asm 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not tlir-translate -t x86-asm 2>&1 | filecheck %s --check-prefix=TRANSLATE
// RUN: not tlir-run %s --dtype f16 2>&1 | filecheck %s --check-prefix=DTYPE
// TARGET: tlir-opt: error: argument -t/--target: invalid choice: 'x86-asm' (choose from mlir)
// TARGET-NOT: usage
// TRANSLATE: tlir-translate: error:
// TRANSLATE-NOT: usage
// DTYPE: tlir-run: error: argument --dtype: invalid choice: 'f16'
// DTYPE-NOT: usage

// Output files: a symbolic link is written through, a device is written, a
// missing directory names the path given.
// RUN: echo old > %t/real && ln -s real %t/link
// RUN: tlir-opt %s -o %t/link && test -L %t/link && filecheck %s --check-prefix=OUT < %t/real
// RUN: tlir-opt %s -o /dev/null && test -c /dev/null
// RUN: not tlir-opt %s -o %t/missing/out.mlir 2>&1 | filecheck %s --check-prefix=NODIR -DDIR=%t
// OUT: tlir.softmax
// NODIR: [[DIR]]/missing/out.mlir: error: cannot write the output file: No such file or directory

func.func @main(%x: tensor<1xf64>) -> tensor<1xf64> {
  %0 = tlir.softmax %x axis = 0 : (tensor<1xf64>) -> tensor<1xf64>
  func.return %0 : tensor<1xf64>
}
