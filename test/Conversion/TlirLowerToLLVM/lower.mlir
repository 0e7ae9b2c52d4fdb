// tlir-lower-to-llvm on its own input (arith, math, memref, func, cf): a memref
// is a bare pointer; a load or store is one getelementptr with the linearized
// index (a view's offset and strides come from its type); a function that
// allocates checks malloc and returns a status (0, or 1 when memory ran out);
// a kernel (`tlir.kernel`) is external, `no_inline`, its buffers `noalias`;
// exp calls the C library, sqrt is the correctly rounded intrinsic.
// RUN: tlir-opt %s -p tlir-lower-to-llvm | filecheck %s
// RUN: tlir-opt %s -p tlir-lower-to-llvm | filecheck %s --check-prefix=NOFAST
// NOFAST-NOT: fastmath
// NOFAST-NOT: contract

// CHECK-DAG:   llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @free(!llvm.ptr)
// CHECK-DAG:   llvm.func @exp(f64) -> f64
// CHECK-DAG:   llvm.func @llvm.sqrt.f64(f64) -> f64
// Integer constants are one op per value and type, at the top of the entry block.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME:    (%[[X:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr) -> i32 {
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(32) : i64
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[FOUR:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[T:.*]] = llvm.call @malloc(%[[SIZE]]) : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[P:.*]] = llvm.ptrtoint %[[T]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[FAILED:.*]] = llvm.icmp "eq" %[[P]], %[[NULL]] : i64
// CHECK-NEXT:    llvm.cond_br %[[FAILED]], ^[[OOM:.*]], ^[[OK:.*]]
// CHECK-NEXT:  ^[[OK]]:
// CHECK-NEXT:    llvm.call @k(%[[X]], %[[T]], %[[NULL]], %[[FOUR]]) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NEXT:    llvm.call @k(%[[T]], %[[OUT]], %[[NULL]], %[[FOUR]]) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NEXT:    llvm.call @free(%[[T]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32
// CHECK-NEXT:  ^[[OOM]]:
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.return %[[ONE]] : i32
// CHECK-LABEL: llvm.func @k
// CHECK-SAME:    (%[[A:.*]]: !llvm.ptr {llvm.noalias}, %[[B:.*]]: !llvm.ptr {llvm.noalias}, %[[LO:.*]]: i64, %[[HI:.*]]: i64) attributes {no_inline} {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %[[STEP:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[LESS:.*]] = llvm.icmp "slt" %[[HI]], %[[N]] : i64
// CHECK-NEXT:    %[[UB:.*]] = llvm.select %[[LESS]], %[[HI]], %[[N]] : i1, i64
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[PA:.*]] = llvm.getelementptr %[[A]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[PA]] : !llvm.ptr -> f64
// CHECK-NEXT:    %[[E:.*]] = llvm.call @exp(%[[V]]) : (f64) -> f64
// CHECK-NEXT:    %[[S:.*]] = llvm.call @llvm.sqrt.f64(%[[E]]) : (f64) -> f64
// CHECK-NEXT:    %[[PB:.*]] = llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:    llvm.store %[[S]], %[[PB]] : f64, !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.add %{{.*}}, %[[STEP]] : i64
// A store into a strided view: index 9 + 7·i + j into the base pointer.
// CHECK-LABEL: llvm.func internal @view
// CHECK-NEXT:    %[[I:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[J:.*]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT:    %[[OFF:.*]] = llvm.mlir.constant(9) : i64
// CHECK-NEXT:    %[[S7:.*]] = llvm.mlir.constant(7) : i64
// CHECK-NEXT:    %[[HALF:.*]] = llvm.mlir.constant(5.000000e-01 : f32) : f32
// CHECK-NEXT:    %[[ROW:.*]] = llvm.mul %[[I]], %[[S7]] : i64
// CHECK-NEXT:    %[[I1:.*]] = llvm.add %[[OFF]], %[[ROW]] : i64
// CHECK-NEXT:    %[[I2:.*]] = llvm.add %[[I1]], %[[J]] : i64
// CHECK-NEXT:    %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[I2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[HALF]], %[[PTR]] : f32, !llvm.ptr
func.func @main(%x: memref<4xf64>, %out: memref<4xf64>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<4xf64>
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  func.call @k(%x, %t, %lo, %hi) : (memref<4xf64>, memref<4xf64>, index, index) -> ()
  func.call @k(%t, %out, %lo, %hi) : (memref<4xf64>, memref<4xf64>, index, index) -> ()
  memref.dealloc %t : memref<4xf64>
  func.return
}
func.func private @k(%a: memref<4xf64>, %b: memref<4xf64>, %lo: index, %hi: index) attributes {tlir.kernel} {
  %n = arith.constant 4 : index
  %ub = arith.minsi %hi, %n : index
  %one = arith.constant 1 : index
  cf.br ^loop(%lo : index)
^loop(%i: index):
  %c = arith.cmpi slt, %i, %ub : index
  cf.cond_br %c, ^body, ^done
^body:
  %v = memref.load %a[%i] : memref<4xf64>
  %e = math.exp %v : f64
  %s = math.sqrt %e : f64
  memref.store %s, %b[%i] : memref<4xf64>
  %next = arith.addi %i, %one : index
  cf.br ^loop(%next : index)
^done:
  func.return
}
func.func private @view(%a: memref<3x7xf32>) {
  %v = memref.subview %a[1, 2] [2, 3] [1, 1] : memref<3x7xf32> to memref<2x3xf32, strided<[7, 1], offset: 9>>
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %f = arith.constant 0.5 : f32
  memref.store %f, %v[%i, %j] : memref<2x3xf32, strided<[7, 1], offset: 9>>
  func.return
}

// A buffer's address as an integer (the row folds' alignment peel): the
// pointer, converted.
// CHECK-LABEL: llvm.func internal @address
// CHECK-SAME:    (%[[A:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
// CHECK:         %[[I:.*]] = llvm.ptrtoint %[[A]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[AT:.*]] = llvm.getelementptr %[[OUT]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[I]], %[[AT]] : i64, !llvm.ptr
func.func private @address(%a: memref<3x7xf32>, %out: memref<1xi64>) {
  %p = "memref.extract_aligned_pointer_as_index"(%a) : (memref<3x7xf32>) -> index
  %i = arith.index_cast %p : index to i64
  %z = arith.constant 0 : index
  memref.store %i, %out[%z] : memref<1xi64>
  func.return
}
