// The generated conv kernel (implicit GEMM) for a fixed target (32-byte vectors,
// a 4x2 tile): output channels x output positions, the im2col block packed on
// the stack, a k loop of f32 vector mulf/addf, the bias added to each output
// channel's vectors after the fold, vector stores into the output. With stride 1
// along the last axis (@main) the block is packed from a band of input rows in
// zero margins (two stack buffers, by channel parity: at each new input channel
// the next one's band is filled): vector copies only; the k block holds whole
// channels, whose 9 kernel offsets are unrolled. Otherwise (@strided) element by
// element, zeros for the padding.
// RUN: tlir-opt %s -p 'tlir-contraction-kernels{vector_bytes=32 registers=16 tile_rows=4 tile_vectors=2}' | filecheck %s
// RUN: tlir-opt %s -p 'tlir-contraction-kernels{vector_bytes=32 registers=16 tile_rows=4 tile_vectors=2}' | filecheck %s --check-prefix=NOFMA

// NOFMA-NOT: fma
// NOFMA-NOT: memref.alloc()

// CHECK-LABEL: func.func @main__conv0
// CHECK-SAME:    (%[[X:.*]]: memref<1x2x5x6xf32> {llvm.noalias}, %[[W:.*]]: memref<4x2x3x3xf32> {llvm.noalias}, %[[BIAS:.*]]: memref<4xf32> {llvm.noalias}, %[[Y:.*]]: memref<1x4x5x6xf32> {llvm.noalias}, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-SAME:    attributes {tlir.parallel_extent = 1 : i64, tlir.num_inputs = 3 : i64, tlir.num_outputs = 1 : i64}
// CHECK-DAG:     %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-DAG:     %[[BAND:.*]] = memref.alloca() {alignment = 64 : i64} : memref<144xf32>
// CHECK-DAG:     %[[X1:.*]] = memref.collapse_shape %[[X]] {{.*}} into memref<60xf32>
// CHECK-DAG:     %[[Y1:.*]] = memref.collapse_shape %[[Y]] {{.*}} into memref<120xf32>
// CHECK:         %[[BP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<864xf32>
// CHECK:         scf.for %{{.*}} = %[[LO]] to %[[HI]] step
// the unit's two bands: 7 rows of 8 (and 8 spare cells before and after) each, zeroed
// CHECK:           scf.for
// CHECK-NEXT:        vector.store %[[ZEROS]], %[[BAND]][%{{.*}}] : memref<144xf32>, vector<8xf32>
// per input channel of the block: at the first, its input rows into its band at
// column 1 (6 wide: two overlapping vectors of 4), margins left +0; then the
// next channel's rows into the other band
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               scf.for
// CHECK:                 scf.if
// CHECK-NEXT:              %[[IN:.*]] = vector.load %[[X1]][%{{.*}}] : memref<60xf32>, vector<4xf32>
// CHECK-NEXT:              vector.store %[[IN]], %[[BAND]][%{{.*}}] : memref<144xf32>, vector<4xf32>
// CHECK:                   vector.load %[[X1]][%{{.*}}] : memref<60xf32>, vector<4xf32>
// CHECK:             scf.if
// CHECK:               arith.remsi
// CHECK:               scf.for
// CHECK:                 scf.if
// CHECK-NEXT:              vector.load %[[X1]][%{{.*}}] : memref<60xf32>, vector<4xf32>
// CHECK-NEXT:              vector.store %{{.*}}, %[[BAND]][%{{.*}}] : memref<144xf32>, vector<4xf32>
// then per kernel offset (unrolled, no division) and output row, one copy out of
// the channel's band at the offset's shift
// CHECK-NOT:         arith.divsi
// CHECK:             scf.for
// CHECK:               %[[ROW:.*]] = vector.load %[[BAND]][%{{.*}}] : memref<144xf32>, vector<4xf32>
// CHECK-NEXT:          vector.store %[[ROW]], %[[BP]][%{{.*}}] : memref<864xf32>, vector<4xf32>
// CHECK:               vector.load %[[BAND]][%{{.*}}] : memref<144xf32>, vector<4xf32>
// CHECK-COUNT-8:     vector.store %{{.*}}, %[[BP]][%{{.*}}] : memref<864xf32>, vector<4xf32>
// the k loop over 4 output channels x 16 positions: 8 accumulators
// CHECK:         scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:           %[[XV:.*]] = vector.load %[[BP]][%{{.*}}] : memref<864xf32>, vector<8xf32>
// CHECK:           %[[WV:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[WV]], %[[XV]] : vector<8xf32>
// CHECK-NEXT:      arith.addf %{{.*}}, %[[P]] : vector<8xf32>
// CHECK:           scf.yield
// bias after the fold, then the tile into the output
// CHECK:         %[[B0:.*]] = memref.load %[[BIAS]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:    %[[BV:.*]] = vector.broadcast %[[B0]] : f32 to vector<8xf32>
// CHECK-NEXT:    arith.addf %{{.*}}, %[[BV]] : vector<8xf32>
// CHECK:         vector.store %{{.*}}, %[[Y1]][%{{.*}}] : memref<120xf32>, vector<8xf32>
func.func @main(%x: tensor<1x2x5x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x6xf32> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x6xf32>
  func.return %y : tensor<1x4x5x6xf32>
}

// CHECK-LABEL: func.func @strided__conv0
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[SX1:.*]] = memref.collapse_shape %{{.*}} into memref<60xf32>
// CHECK:         %[[SBP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<288xf32>
// im2col, per k (input channel, kernel offset) and output row: zeros, copy, zeros
// CHECK:           arith.divsi
// CHECK:           arith.remsi
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NEXT:          arith.addi
// CHECK-NEXT:          memref.store %[[ZERO]], %[[SBP]][%{{.*}}] : memref<288xf32>
// CHECK:             scf.for
// CHECK:               %[[V:.*]] = memref.load %[[SX1]][%{{.*}}] : memref<60xf32>
// CHECK:               memref.store %[[V]], %[[SBP]][%{{.*}}] : memref<288xf32>
// CHECK:             scf.for
// CHECK-NEXT:          arith.addi
// CHECK-NEXT:          memref.store %[[ZERO]], %[[SBP]][%{{.*}}] : memref<288xf32>
func.func @strided(%x: tensor<1x2x5x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x3xf32> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 2>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x3xf32>
  func.return %y : tensor<1x4x5x3xf32>
}
