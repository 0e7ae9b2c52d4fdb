// tlir-scf-to-cf gives exactly what xDSL's convert-scf-to-cf gives (the same
// patterns, each structured op rewritten once): nested loops, loop-carried
// values, an if with results inside a loop, an if without else, a switch.
// RUN: tlir-opt %s -p tlir-scf-to-cf | filecheck %s
// RUN: tlir-opt %s -p convert-scf-to-cf > %t.xdsl
// RUN: tlir-opt %s -p tlir-scf-to-cf > %t.tlir
// `diff` last: lit runs it as a Python script and leaves PYTHONPATH pointing at
// lit for the commands after it.
// RUN: diff %t.xdsl %t.tlir
// CHECK-NOT: scf.
// CHECK-LABEL: func.func @nest
// CHECK:         cf.br ^[[COND:.*]](%{{.*}}, %{{.*}} : index, f64)
// CHECK:       ^[[COND]](%[[I:.*]]: index, %[[ACC:.*]]: f64):
// CHECK-NEXT:    %[[C:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK-NEXT:    cf.cond_br %[[C]], ^{{.*}}, ^{{.*}}
func.func @nest(%a: memref<4x5xf64>, %n: index, %m: index) -> f64 {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %lo to %n step %one iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %lo to %m step %one iter_args(%s = %acc) -> (f64) {
      %v = memref.load %a[%i, %j] : memref<4x5xf64>
      %pos = arith.cmpf ogt, %v, %zero : f64
      %t = scf.if %pos -> (f64) {
        %w = arith.addf %s, %v : f64
        scf.yield %w : f64
      } else {
        scf.yield %s : f64
      }
      scf.yield %t : f64
    }
    %last = arith.cmpi eq, %i, %lo : index
    scf.if %last {
      memref.store %row, %a[%i, %lo] : memref<4x5xf64>
    }
    scf.yield %row : f64
  }
  %k = scf.index_switch %n -> f64
  case 1 {
    scf.yield %r : f64
  }
  default {
    scf.yield %zero : f64
  }
  func.return %k : f64
}
