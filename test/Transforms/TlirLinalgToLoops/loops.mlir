// tlir-linalg-to-loops: linalg on buffers to scf.for nests, one loop per
// dimension in the order they are numbered, loads at the indexing maps, the
// scalar body, one store per output. In a kernel whose linalg ops all iterate
// a parallel dimension 0 of the same extent N and touch written buffers only
// along it, the outer loops run over [lo, min(hi, N)) and the kernel records
// tlir.parallel_extent = N; otherwise N = 1 and lo/hi are ignored.
// RUN: tlir-opt %s --split-input-file -p 'tlir-linalg-to-loops{vector_bytes=0}' | filecheck %s

// Rows of a reduction: every loop nest splits over rows.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[X:.*]]: memref<4x3xf64>, %[[Y:.*]]: memref<4xf64>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-SAME:    tlir.parallel_extent = 4 : i64
// CHECK-NEXT:    %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[UB:.*]] = arith.minsi %[[HI]], %[[N]] : index
// CHECK:         scf.for %[[I:.*]] = %[[LO]] to %[[UB]] step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[Y]][%[[I]]] : memref<4xf64>
// CHECK:         scf.for %[[R:.*]] = %[[LO]] to %[[UB]] step %{{.*}} {
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[X]][%[[R]], %[[K]]] : memref<4x3xf64>
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %[[Y]][%[[R]]] : memref<4xf64>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f64
// CHECK-NEXT:        memref.store %[[S]], %[[Y]][%[[R]]] : memref<4xf64>
func.func @rows(%x: memref<4x3xf64>, %y: memref<4xf64>, %lo: index, %hi: index) attributes {tlir.kernel, tlir.num_inputs = 1 : i64, tlir.num_outputs = 1 : i64} {
  %z = arith.constant 0.0 : f64
  linalg.fill ins(%z : f64) outs(%y : memref<4xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x3xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// A sum over dimension 0 writes one accumulator from every iteration of it:
// the kernel is not split (N = 1) and its loops run over the whole range.
// CHECK-LABEL: func.func @columns
// CHECK-SAME:    tlir.parallel_extent = 1 : i64
// CHECK-NOT:     arith.minsi
// CHECK:         scf.for %{{.*}} = %[[Z:.*]] to %[[N:.*]] step
func.func @columns(%x: memref<4x3xf64>, %y: memref<3xf64>, %lo: index, %hi: index) attributes {tlir.kernel, tlir.num_inputs = 1 : i64, tlir.num_outputs = 1 : i64} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<4x3xf64>) outs(%y : memref<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// Affine index expressions become index arithmetic; linalg.index is the loop
// variable; a function that is not a kernel keeps its full ranges.
// CHECK-LABEL: func.func @strided
// CHECK:         scf.for %[[O:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[M:.*]] = arith.muli %[[O]], %[[TWO]] : index
// CHECK-NEXT:      %[[L:.*]] = memref.load %{{.*}}[%[[M]]] : memref<8xf64>
// CHECK-NEXT:      %[[F:.*]] = arith.index_cast %[[O]] : index to i64
func.func @strided(%x: memref<8xf64>, %y: memref<4xf64>, %z: memref<4xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf64>) outs(%y, %z : memref<4xf64>, memref<4xi64>) {
  ^bb0(%a: f64, %b: f64, %c: i64):
    %i = linalg.index 0 : index
    %n = arith.index_cast %i : index to i64
    linalg.yield %a, %n : f64, i64
  }
  func.return
}

// -----

// Rows folded side by side: with at least 8 rows before the reduction loop,
// strips of 8 rows run the reduction loop once, and inside it each row's own
// load, add and store in turn (every row's fold unchanged: its terms in
// ascending k, one add each); the rows past the last whole strip, here 2 of
// the range [lo, min(hi, 10)), take the plain nest.
// CHECK-LABEL: func.func @row_strips
// CHECK:         %[[UB:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[SPAN:.*]] = arith.subi %[[UB]], %[[LO:.*]] : index
// CHECK-NEXT:    %[[STRIPS:.*]] = arith.divui %[[SPAN]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.muli %[[STRIPS]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[SPLIT:.*]] = arith.addi %[[LO]], %[[WHOLE]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %[[LO]] to %[[SPLIT]] step %[[EIGHT]] {
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[A0:.*]] = memref.load %{{.*}}[%[[R]], %[[K]]] : memref<10x3xf64>
// CHECK-NEXT:        %[[ACC0:.*]] = memref.load %{{.*}}[%[[R]]] : memref<10xf64>
// CHECK-NEXT:        %[[S0:.*]] = arith.addf %[[ACC0]], %[[A0]] : f64
// CHECK-NEXT:        memref.store %[[S0]], %{{.*}}[%[[R]]] : memref<10xf64>
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[R1:.*]] = arith.addi %[[R]], %[[ONE]] : index
// CHECK-NEXT:        %[[A1:.*]] = memref.load %{{.*}}[%[[R1]], %[[K]]] : memref<10x3xf64>
// CHECK-COUNT-6:     arith.addi %[[R]], %{{.*}} : index
// CHECK-NOT:         arith.addi %[[R]]
// CHECK:         scf.for %[[REST:.*]] = %[[SPLIT]] to %[[UB]] step %{{.*}} {
// CHECK:           memref.load %{{.*}}[%[[REST]], %{{.*}}] : memref<10x3xf64>
func.func @row_strips(%x: memref<10x3xf64>, %y: memref<10xf64>, %lo: index, %hi: index) attributes {tlir.kernel, tlir.num_inputs = 1 : i64, tlir.num_outputs = 1 : i64} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<10x3xf64>) outs(%y : memref<10xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// A window's shape-only operand (indexed by the window dimensions, never
// written) does not stop the split: every split reads it alike.
// CHECK-LABEL: func.func @window
// CHECK-SAME:    tlir.parallel_extent = 4 : i64
// CHECK:         arith.minsi
func.func @window(%x: memref<4x6xf64>, %y: memref<4x3xf64>, %w: memref<2xf64>, %lo: index, %hi: index) attributes {tlir.kernel, tlir.num_inputs = 1 : i64, tlir.num_outputs = 1 : i64} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x6xf64>, memref<2xf64>) outs(%y : memref<4x3xf64>) {
  ^bb0(%a: f64, %s: f64, %acc: f64):
    %m = arith.maximumf %acc, %a : f64
    linalg.yield %m : f64
  }
  func.return
}

// -----

// A select between two inputs that read one buffer at indices differing only in
// constants (x[0, i] or x[1, i], by the sign of w[i]) is one load at the selected
// index; a select between two buffers stays a select of two loads.
// CHECK-LABEL: func.func @selected_load
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[W:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xf64>
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[C:.*]] = arith.cmpf oge, %[[W]], %[[Z]] : f64
// CHECK-NEXT:      %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[END:.*]] = arith.select %[[C]], %[[K0]], %[[K1]] : index
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[END]], %[[I]]] : memref<2x4xf64>
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f64
// CHECK:         func.return
func.func @selected_load(%x: memref<2x4xf64>, %w: memref<4xf64>, %y: memref<4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (0, d0)>, affine_map<(d0) -> (1, d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %x, %w : memref<2x4xf64>, memref<2x4xf64>, memref<4xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%lo: f64, %hi: f64, %v: f64, %out: f64):
    %z = arith.constant 0.0 : f64
    %c = arith.cmpf oge, %v, %z : f64
    %s = arith.select %c, %lo, %hi : f64
    %p = arith.mulf %s, %v : f64
    linalg.yield %p : f64
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @two_buffers
// CHECK:           %[[A:.*]] = memref.load %{{.*}} : memref<4xf64>
// CHECK-NEXT:      %[[B:.*]] = memref.load %{{.*}} : memref<4xf64>
// CHECK:           arith.select %{{.*}}, %[[A]], %[[B]] : f64
func.func @two_buffers(%a: memref<4xf64>, %b: memref<4xf64>, %w: memref<4xf64>, %y: memref<4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b, %w : memref<4xf64>, memref<4xf64>, memref<4xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%lo: f64, %hi: f64, %v: f64, %out: f64):
    %z = arith.constant 0.0 : f64
    %c = arith.cmpf oge, %v, %z : f64
    %s = arith.select %c, %lo, %hi : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// A fold's outputs started by a broadcast just before it: the start is written
// tile by tile inside the fold's nest (the loops over the parallel dimensions
// after the first reduction one), right before the reduction loops that read
// it, not in a pass of its own over the whole output.
// CHECK-LABEL: func.func @start_in_nest
// CHECK-SAME:    (%[[X:.*]]: memref<4x3x8xf64>, %[[ROW:.*]]: memref<8xf64>, %[[Y:.*]]: memref<4x8xf64>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-SAME:    tlir.parallel_extent = 4 : i64
// CHECK:         scf.for %[[I:.*]] = %[[LO]] to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[ROW]][%[[J]]] : memref<8xf64>
// CHECK-NEXT:        memref.store %[[V]], %[[Y]][%[[I]], %[[J]]] : memref<4x8xf64>
// CHECK-NEXT:      }
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             scf.for %[[J2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[A:.*]] = memref.load %[[X]][%[[I]], %[[K]], %[[J2]]] : memref<4x3x8xf64>
// CHECK-NEXT:          %[[ACC:.*]] = memref.load %[[Y]][%[[I]], %[[J2]]] : memref<4x8xf64>
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @start_in_nest(%x: memref<4x3x8xf64>, %row: memref<8xf64>, %y: memref<4x8xf64>, %lo: index, %hi: index) attributes {tlir.kernel, tlir.num_inputs = 2 : i64, tlir.num_outputs = 1 : i64} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%row : memref<8xf64>) outs(%y : memref<4x8xf64>) {
  ^bb0(%r: f64, %o: f64):
    linalg.yield %r : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<4x3x8xf64>) outs(%y : memref<4x8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// The same in a kernel that takes the batch (`tlir.batch_axes`, the batch its last
// argument): the start is written inside the fold's nest, whose outer loop runs to
// min(hi, batch).
// CHECK-LABEL: func.func @start_in_batch_nest
// CHECK-SAME:    (%[[X:.*]]: memref<4x3x8xf64>, %[[ROW:.*]]: memref<8xf64>, %[[Y:.*]]: memref<4x8xf64>, %[[LO:.*]]: index, %[[HI:.*]]: index, %[[B:.*]]: index)
// CHECK:         %[[N:.*]] = arith.minsi %[[HI]], %[[B]] : index
// CHECK:         scf.for %[[I:.*]] = %[[LO]] to %[[N]] step %{{.*}} {
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[ROW]][%[[J]]] : memref<8xf64>
// CHECK-NEXT:        memref.store %[[V]], %[[Y]][%[[I]], %[[J]]] : memref<4x8xf64>
// CHECK-NEXT:      }
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             scf.for %[[J2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[A:.*]] = memref.load %[[X]][%[[I]], %[[K]], %[[J2]]] : memref<4x3x8xf64>
// CHECK-NEXT:          %[[ACC:.*]] = memref.load %[[Y]][%[[I]], %[[J2]]] : memref<4x8xf64>
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @start_in_batch_nest(%x: memref<4x3x8xf64>, %row: memref<8xf64>, %y: memref<4x8xf64>, %lo: index, %hi: index, %b: index) attributes {tlir.kernel, tlir.num_inputs = 2 : i64, tlir.num_outputs = 1 : i64, tlir.batch_axes = [array<i64: 1, 0, 0>, array<i64: 0>, array<i64: 1, 0>]} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%row : memref<8xf64>) outs(%y : memref<4x8xf64>) {
  ^bb0(%r: f64, %o: f64):
    linalg.yield %r : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<4x3x8xf64>) outs(%y : memref<4x8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// A fold whose first dimension is a reduction keeps its start's own pass (a
// tile would be the whole output, outside the loop that threads split).
// CHECK-LABEL: func.func @start_before_reduction_first
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[I]]] : memref<8xf64>
// CHECK-NEXT:    }
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : index
func.func @start_before_reduction_first(%x: memref<3x8xf64>, %y: memref<8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%y : memref<8xf64>) {
  ^bb0(%o: f64):
    %z = arith.constant 0.0 : f64
    linalg.yield %z : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<3x8xf64>) outs(%y : memref<8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// An op between the start and the fold (here one reading the started buffer)
// keeps the start's own pass before it.
// CHECK-LABEL: func.func @start_read_before_fold
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %[[Y:.*]][%{{.*}}, %{{.*}}] : memref<4x8xf64>
// CHECK:         "memref.copy"(%[[Y]], %{{.*}})
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
func.func @start_read_before_fold(%x: memref<4x3x8xf64>, %row: memref<8xf64>, %y: memref<4x8xf64>, %c: memref<4x8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%row : memref<8xf64>) outs(%y : memref<4x8xf64>) {
  ^bb0(%r: f64, %o: f64):
    linalg.yield %r : f64
  }
  "memref.copy"(%y, %c) : (memref<4x8xf64>, memref<4x8xf64>) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<4x3x8xf64>) outs(%y : memref<4x8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}
