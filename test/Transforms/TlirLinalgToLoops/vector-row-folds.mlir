// tlir-linalg-to-loops, vector strips of row folds: a reduction whose last
// dimension is its one reduction and whose body is plain float arithmetic
// runs `lanes` consecutive outputs in the lanes of one vector (4 of f64 with
// vector_bytes=32). Every output still folds its own terms from the first to
// the last: a square of 4 rows x 4 terms is 4 vector loads and a transpose in
// registers (two rounds of shuffles), then 4 vector bodies in ascending term
// order; the terms past the last square run element by element after the
// partial results are stored (and, where all rows share one alignment, the
// terms before the first vector boundary before the squares); outputs past
// the last whole vector take the scalar loops. Bodies with a comparison, and
// folds with fewer outputs or terms than lanes or fewer than 4,096 terms in
// all, keep the scalar loops.
// RUN: tlir-opt %s --split-input-file -p 'tlir-linalg-to-loops{vector_bytes=32}' | filecheck %s

// CHECK-LABEL: func.func @row_sums
// CHECK-SAME:    (%[[X:.*]]: memref<6x702xf64>, %[[Y:.*]]: memref<6xf64>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK:         %[[UB:.*]] = arith.minsi %[[HI]]
// CHECK:         %[[SPLIT:.*]] = arith.addi %[[LO]], %{{.*}} : index
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %[[X]] {{.*}} into memref<4212xf64>
// CHECK:         scf.for %[[R:.*]] = %[[LO]] to %[[SPLIT]] step %{{.*}} {
// CHECK-NEXT:      %[[INIT:.*]] = vector.load %[[Y]][%[[R]]] : memref<6xf64>, vector<4xf64>
// CHECK-NEXT:      %[[SUMS:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf64>) {
// CHECK-COUNT-4:     vector.load %[[FLAT]][%{{.*}}] : memref<4212xf64>, vector<4xf64>
// CHECK-NEXT:        %[[A:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5]
// CHECK-COUNT-3:     vector.shuffle %{{.*}}, %{{.*}} [{{.*}}]
// CHECK-NEXT:        %[[C0:.*]] = vector.shuffle %[[A]], %{{.*}} [0, 4, 2, 6]
// CHECK-NEXT:        %[[C1:.*]] = vector.shuffle %[[A]], %{{.*}} [1, 5, 3, 7]
// CHECK-NEXT:        %[[C2:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 4, 2, 6]
// CHECK-NEXT:        %[[C3:.*]] = vector.shuffle %{{.*}}, %{{.*}} [1, 5, 3, 7]
// CHECK-NEXT:        %[[S0:.*]] = arith.addf %[[ACC]], %[[C0]] : vector<4xf64>
// CHECK-NEXT:        %[[S1:.*]] = arith.addf %[[S0]], %[[C1]] : vector<4xf64>
// CHECK-NEXT:        %[[S2:.*]] = arith.addf %[[S1]], %[[C2]] : vector<4xf64>
// CHECK-NEXT:        %[[S3:.*]] = arith.addf %[[S2]], %[[C3]] : vector<4xf64>
// CHECK-NEXT:        scf.yield %[[S3]] : vector<4xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:      vector.store %[[SUMS]], %[[Y]][%[[R]]] : memref<6xf64>, vector<4xf64>
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        memref.load %[[X]][%[[R]], %[[K]]] : memref<6x702xf64>
// CHECK-COUNT-3:     memref.store %{{.*}}, %[[Y]][%{{.*}}] : memref<6xf64>
// CHECK:             memref.store %{{.*}}, %[[Y]][%{{.*}}] : memref<6xf64>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[REST:.*]] = %[[SPLIT]] to %[[UB]] step %{{.*}} {
// CHECK-NOT:       vector
// CHECK:         func.return
func.func @row_sums(%x: memref<6x702xf64>, %y: memref<6xf64>, %lo: index, %hi: index) attributes {tlir.kernel, tlir.num_inputs = 1 : i64, tlir.num_outputs = 1 : i64} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<6x702xf64>) outs(%y : memref<6xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// Rows of 1,024 f64 (8 KiB, a multiple of the vector): every row starts at the
// same offset within a vector, so each strip first runs the terms up to the
// input's next 32-byte boundary one by one, then whole aligned squares, then
// the rest.
// CHECK-LABEL: func.func @aligned_rows
// CHECK-SAME:    (%[[X:.*]]: memref<4x1024xf64>, %[[Y:.*]]: memref<4xf64>)
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[TERMS:.*]] = arith.constant 1024 : index
// CHECK:         %[[BASE:.*]] = "memref.extract_aligned_pointer_as_index"(%[[X]]) : (memref<4x1024xf64>) -> index
// CHECK:         scf.for %[[R:.*]] = {{.*}} {
// CHECK:           %[[ADDRESS:.*]] = arith.addi %[[BASE]], %{{.*}} : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.remsi %[[ADDRESS]], %[[BYTES]] : index
// CHECK-NEXT:      %[[GAP:.*]] = arith.subi %[[BYTES]], %[[OFF]] : index
// CHECK-NEXT:      %[[GAP32:.*]] = arith.remsi %[[GAP]], %[[BYTES]] : index
// CHECK-NEXT:      %[[PEEL:.*]] = arith.divsi %[[GAP32]], %[[EIGHT]] : index
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %[[PEEL]] step %{{.*}} {
// CHECK-NEXT:        memref.load %[[X]][%[[R]], %[[K]]] : memref<4x1024xf64>
// CHECK:           }
// CHECK:           %[[INIT:.*]] = vector.load %[[Y]][%[[R]]] : memref<4xf64>, vector<4xf64>
// CHECK-NEXT:      %[[SUMS:.*]] = scf.for %{{.*}} = %[[PEEL]] to %[[END:.*]] step %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (vector<4xf64>) {
// CHECK:           vector.store %[[SUMS]], %[[Y]][%[[R]]] : memref<4xf64>, vector<4xf64>
// CHECK-NEXT:      scf.for %{{.*}} = %[[END]] to %[[TERMS]] step %{{.*}} {
func.func @aligned_rows(%x: memref<4x1024xf64>, %y: memref<4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x1024xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// A squared deviation from each row's mean: the means are one vector per strip,
// loaded before the terms' loop; the constant is a splat.
// CHECK-LABEL: func.func @deviations
// CHECK-SAME:    (%[[X:.*]]: memref<4x1025xf64>, %[[M:.*]]: memref<4xf64>, %[[Y:.*]]: memref<4xf64>)
// CHECK:         %[[N:.*]] = arith.constant dense<1.025000e+03> : vector<4xf64>
// CHECK:         scf.for %[[R:.*]] = {{.*}} {
// CHECK-NEXT:      %[[MEANS:.*]] = vector.load %[[M]][%[[R]]] : memref<4xf64>, vector<4xf64>
// CHECK-NEXT:      %[[INIT:.*]] = vector.load %[[Y]][%[[R]]] : memref<4xf64>, vector<4xf64>
// CHECK-NEXT:      scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf64>) {
// CHECK-COUNT-8:     vector.shuffle
// CHECK-NEXT:        %[[MU:.*]] = arith.divf %[[MEANS]], %[[N]] : vector<4xf64>
// CHECK-NEXT:        %[[D:.*]] = arith.subf %{{.*}}, %[[MU]] : vector<4xf64>
// CHECK-NEXT:        %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : vector<4xf64>
// CHECK-NEXT:        arith.addf %[[ACC]], %[[SQ]] : vector<4xf64>
func.func @deviations(%x: memref<4x1025xf64>, %m: memref<4xf64>, %y: memref<4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<4x1025xf64>, memref<4xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%a: f64, %mean: f64, %acc: f64):
    %n = arith.constant 1025.0 : f64
    %mu = arith.divf %mean, %n : f64
    %d = arith.subf %a, %mu : f64
    %sq = arith.mulf %d, %d : f64
    %s = arith.addf %acc, %sq : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// An input read with the outputs' index last (x[k, i]): each term of the
// strip's outputs is one contiguous vector load, no transpose.
// CHECK-LABEL: func.func @transposed_read
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-COUNT-4:     vector.load
// CHECK-NOT:         vector.shuffle
// CHECK:             scf.yield
func.func @transposed_read(%x: memref<1024x4xf64>, %y: memref<4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1024x4xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// A maximum compares: scalar loops (xDSL builds cmpf/select on scalars only).
// CHECK-LABEL: func.func @row_max
// CHECK-NOT:     vector
// CHECK:         arith.cmpf
// CHECK-NOT:     vector
// CHECK:         func.return
func.func @row_max(%x: memref<8x512xf64>, %y: memref<8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x512xf64>) outs(%y : memref<8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %c = arith.cmpf ole, %acc, %a : f64
    %s = arith.select %c, %a, %acc : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// Three outputs, or three terms, do not fill a vector of four; 8 x 8 terms are
// fewer than MIN_TERMS (4,096) in all: scalar loops.
// CHECK-LABEL: func.func @too_few
// CHECK-NOT:     vector
// CHECK:         func.return
func.func @too_few(%x: memref<3x2048xf64>, %y: memref<3xf64>, %u: memref<2048x3xf64>, %v: memref<2048xf64>, %w: memref<8x8xf64>, %t: memref<8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x2048xf64>) outs(%y : memref<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%u : memref<2048x3xf64>) outs(%v : memref<2048xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%w : memref<8x8xf64>) outs(%t : memref<8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  }
  func.return
}
