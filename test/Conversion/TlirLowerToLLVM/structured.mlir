// tlir-lower-to-llvm takes scf.for and scf.if itself, into the blocks tlir-scf-to-cf
// makes, in the same order: a loop is init → condition(iv, carried) → body → end, the
// body stepping iv and branching back; an if branches to its arms, which branch to a
// block taking its results, then on to the rest. The compile path relies on it (it
// writes LLVM IR text from the loops and runs no tlir-scf-to-cf), so both routes must
// give the same LLVM dialect, op for op:
// RUN: tlir-opt %s -p tlir-lower-to-llvm > %t.direct
// RUN: tlir-opt %s -p tlir-scf-to-cf,tlir-lower-to-llvm > %t.cf
// RUN: diff %t.direct %t.cf
// RUN: filecheck %s < %t.direct

// CHECK-LABEL: llvm.func @k
// CHECK-SAME:    (%[[A:.*]]: !llvm.ptr, %[[O:.*]]: !llvm.ptr, %[[S:.*]]: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64) {
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f64) : f64
// CHECK-NEXT:    llvm.br ^[[COND:.*]](%[[LO]], %[[ZERO]] : i64, f64)
// CHECK-NEXT:  ^[[COND]](%[[I:.*]]: i64, %[[ACC:.*]]: f64):
// CHECK-NEXT:    %[[IN:.*]] = llvm.icmp "slt" %[[I]], %[[HI]] : i64
// CHECK-NEXT:    llvm.cond_br %[[IN]], ^[[BODY:.*]], ^[[END:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:         %[[P:.*]] = llvm.fcmp "ogt" %{{.*}}, %[[ZERO]] : f64
// CHECK-NEXT:    llvm.cond_br %[[P]], ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    %[[SQ:.*]] = llvm.fmul
// CHECK-NEXT:    llvm.br ^[[JOIN:.*]](%[[SQ]] : f64)
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK-NEXT:    %[[NEG:.*]] = llvm.fneg
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[NEG]] : f64)
// CHECK-NEXT:  ^[[JOIN]](%[[R:.*]]: f64):
// CHECK-NEXT:    llvm.br ^[[REST:.*]]
// CHECK-NEXT:  ^[[REST]]:
// CHECK:         %[[NEXT:.*]] = llvm.fadd %[[ACC]], %[[R]] : f64
// CHECK-NEXT:    %[[STEP:.*]] = llvm.add %[[I]], %[[ONE]] : i64
// CHECK-NEXT:    llvm.br ^[[COND]](%[[STEP]], %[[NEXT]] : i64, f64)
// CHECK-NEXT:  ^[[END]]:
// CHECK-NEXT:    %[[BIG:.*]] = llvm.fcmp "ogt" %[[ACC]], %[[ZERO]] : f64
// CHECK-NEXT:    llvm.cond_br %[[BIG]], ^[[STORE:.*]], ^[[DONE:.*]]
// CHECK-NEXT:  ^[[STORE]]:
// CHECK:         llvm.store %[[ACC]]
// CHECK-NEXT:    llvm.br ^[[DONE]]
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    llvm.return
func.func @k(%a: memref<8xf64>, %o: memref<8xf64>, %s: memref<f64>, %lo: index,
                 %hi: index) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1 : index
  %sum = scf.for %i = %lo to %hi step %one iter_args(%acc = %zero) -> (f64) {
    %x = memref.load %a[%i] : memref<8xf64>
    %positive = arith.cmpf ogt, %x, %zero : f64
    %r = scf.if %positive -> (f64) {
      %square = arith.mulf %x, %x : f64
      scf.yield %square : f64
    } else {
      %minus = arith.negf %x : f64
      scf.yield %minus : f64
    }
    memref.store %r, %o[%i] : memref<8xf64>
    %next = arith.addf %acc, %r : f64
    scf.yield %next : f64
  }
  %big = arith.cmpf ogt, %sum, %zero : f64
  scf.if %big {
    memref.store %sum, %s[] : memref<f64>
  }
  func.return
}
