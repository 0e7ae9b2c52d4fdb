// The generated matmul kernel for a fixed AVX2-like target (32-byte vectors, a
// 6x2 register tile): a memref-level func.func with lo/hi, a packed B panel on
// the stack, the tile's rows of A read in place (they share no L1 set beyond its
// ways), a k loop carrying 12 accumulator vectors, each updated by one mulf then
// one addf (never an fma).
// RUN: tlir-opt %s --split-input-file -p 'tlir-contraction-kernels{vector_bytes=32 registers=16 tile_rows=6 tile_vectors=2}' | filecheck %s
// RUN: tlir-opt %s --split-input-file -p 'tlir-contraction-kernels{vector_bytes=32 registers=16 tile_rows=6 tile_vectors=2}' | filecheck %s --check-prefix=NOFMA
// RUN: tlir-opt %s --split-input-file -p 'tlir-contraction-kernels{vector_bytes=32 registers=16 tile_rows=1 tile_vectors=12}' | filecheck %s --check-prefix=ROW
// RUN: tlir-opt %s --split-input-file -p 'tlir-contraction-kernels{vector_bytes=32 registers=32 tile_rows=16 tile_vectors=1 l1_bytes=2048}' | filecheck %s --check-prefix=PARTIAL

// NOFMA-NOT: fma
// NOFMA-NOT: memref.alloc()
// NOFMA-NOT: fastmath

// CHECK-LABEL: func.func @main__matmul0
// CHECK-SAME:    (%[[A:.*]]: memref<10x16xf64> {llvm.noalias}, %[[B:.*]]: memref<16x12xf64> {llvm.noalias}, %[[C:.*]]: memref<10x12xf64> {llvm.noalias}, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-SAME:    attributes {tlir.parallel_extent = 2 : i64, tlir.num_inputs = 2 : i64, tlir.num_outputs = 1 : i64}
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf64>
// CHECK:         %[[A1:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0 : i64, 1 : i64]] : memref<10x16xf64> into memref<160xf64>
// CHECK:         %[[B1:.*]] = memref.collapse_shape %[[B]]
// CHECK:         %[[C1:.*]] = memref.collapse_shape %[[C]]
// CHECK:         %[[BP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<384xf64>
// CHECK-NOT:       memref.alloca() {alignment = 64 : i64} : memref<144xf64>
// CHECK:         scf.for %{{.*}} = %[[LO]] to %[[HI]] step
// B packed row by row, vector copies:
// CHECK:           vector.load %[[B1]][%{{.*}}] : memref<192xf64>, vector<4xf64>
// CHECK:           vector.store %{{.*}}, %[[BP]][%{{.*}}] : memref<384xf64>, vector<4xf64>
// the k loop: 12 accumulators from +0, two B vectors, six broadcasts of A
// CHECK:           scf.for %{{.*}} iter_args(%[[ACC0:[^ ]*]] = %[[ZERO]], %[[ACC1:[^ ]*]] = %[[ZERO]], {{.*}}) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>)
// CHECK:             %[[B0:.*]] = vector.load %[[BP]][%{{.*}}] : memref<384xf64>, vector<4xf64>
// CHECK:             %[[BV1:.*]] = vector.load %[[BP]][%{{.*}}] : memref<384xf64>, vector<4xf64>
// CHECK:             %[[AS:.*]] = memref.load %[[A1]][%{{.*}}] : memref<160xf64>
// CHECK-NEXT:        %[[AV:.*]] = vector.broadcast %[[AS]] : f64 to vector<4xf64>
// CHECK-NEXT:        %[[P0:.*]] = arith.mulf %[[AV]], %[[B0]] : vector<4xf64>
// CHECK-NEXT:        %{{.*}} = arith.addf %[[ACC0]], %[[P0]] : vector<4xf64>
// CHECK-NEXT:        %[[P1:.*]] = arith.mulf %[[AV]], %[[BV1]] : vector<4xf64>
// CHECK-NEXT:        %{{.*}} = arith.addf %[[ACC1]], %[[P1]] : vector<4xf64>
// CHECK-COUNT-5:     vector.broadcast
// CHECK:             scf.yield
// the tile stored as vectors into C
// CHECK:           vector.store %{{.*}}, %[[C1]][%{{.*}}] : memref<120xf64>, vector<4xf64>

// The one-row tile (Zen 1): one broadcast of A per k for up to 12 B vectors;
// here the 12 columns make one partial tile of 3 vectors (stored through a stack tile).
// ROW-LABEL: func.func @main__matmul0
// ROW:         scf.for %{{.*}} iter_args({{.*}}) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>)
// ROW:           vector.broadcast %{{.*}} : f64 to vector<4xf64>
// ROW-COUNT-3:   arith.mulf
func.func @main(%a: tensor<10x16xf64>, %b: tensor<16x12xf64>) -> tensor<10x12xf64> {
  %y = tlir.matmul %a, %b : (tensor<10x16xf64>, tensor<16x12xf64>) -> tensor<10x12xf64>
  func.return %y : tensor<10x12xf64>
}

// -----

// With more summed indices than one cache block holds (k = 40 against blocks of
// 16 with this small L1) and rows of C that crowd one L1 set (32 f64 columns:
// with 4 sets, all 16 rows of a tile in one), the partial sums between blocks go
// to a scratch argument after the result, one slice per work unit (2 units x 16
// rows x a panel stride of 24 = 768), never to C: the first block stores its
// tiles there from +0, the later blocks reload them, and only the last block
// writes C. Rows of C spread over the sets (12 columns) keep the sums in C.
// PARTIAL-LABEL: func.func @crowded__matmul0
// PARTIAL-SAME:    %[[C:[^:]*]]: memref<10x32xf64> {llvm.noalias}, %[[P:[^:]*]]: memref<768xf64> {llvm.noalias}, %{{.*}}: index, %{{.*}}: index)
// PARTIAL:         %[[C1:.*]] = memref.collapse_shape %[[C]]
// PARTIAL-NOT:     memref.alloc()
// PARTIAL:         vector.store %{{.*}}, %[[P]][%{{.*}}] : memref<768xf64>, vector<4xf64>
// PARTIAL-NOT:     vector.store %{{.*}}, %[[C1]]
// PARTIAL:         vector.load %[[P]][%{{.*}}] : memref<768xf64>, vector<4xf64>
// PARTIAL:         vector.store %{{.*}}, %[[C1]][%{{.*}}] : memref<320xf64>, vector<4xf64>
// PARTIAL-LABEL: func.func @spread__matmul0
// PARTIAL-SAME:    memref<10x12xf64> {llvm.noalias}, %{{[^:]*}}: index, %{{.*}}: index)
func.func @crowded(%a: tensor<10x40xf64>, %b: tensor<40x32xf64>) -> tensor<10x32xf64> {
  %y = tlir.matmul %a, %b : (tensor<10x40xf64>, tensor<40x32xf64>) -> tensor<10x32xf64>
  func.return %y : tensor<10x32xf64>
}
func.func @spread(%a: tensor<10x40xf64>, %b: tensor<40x12xf64>) -> tensor<10x12xf64> {
  %y = tlir.matmul %a, %b : (tensor<10x40xf64>, tensor<40x12xf64>) -> tensor<10x12xf64>
  func.return %y : tensor<10x12xf64>
}

// -----

// Rows of A 4 KiB apart in the L1 of this target (32 f64 = 256 bytes with 4
// sets): all 16 rows of a tile would share one set, so each tile copies its
// block of A (16 rows x a k block of 16, rows 24 apart) into a stack buffer,
// and the broadcasts read that copy.
// PARTIAL-LABEL: func.func @crowded_a__matmul0
// PARTIAL-SAME:    (%[[A:[^:]*]]: memref<20x32xf64>
// PARTIAL:         %[[A1:.*]] = memref.collapse_shape %[[A]]
// PARTIAL:         %[[AP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<384xf64>
// PARTIAL:         vector.load %[[A1]][%{{.*}}] : memref<640xf64>, vector<4xf64>
// PARTIAL-NEXT:    vector.store %{{.*}}, %[[AP]][%{{.*}}] : memref<384xf64>, vector<4xf64>
// PARTIAL:         memref.load %[[AP]][%{{.*}}] : memref<384xf64>
// PARTIAL-NEXT:    vector.broadcast
func.func @crowded_a(%a: tensor<20x32xf64>, %b: tensor<32x12xf64>) -> tensor<20x12xf64> {
  %y = tlir.matmul %a, %b : (tensor<20x32xf64>, tensor<32x12xf64>) -> tensor<20x12xf64>
  func.return %y : tensor<20x12xf64>
}
