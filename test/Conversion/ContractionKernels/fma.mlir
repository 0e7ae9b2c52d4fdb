// The generated matmul kernel in the opt-in fma numerics, for an AVX-512-like
// target whose stack budget puts the packed block of B in the scratch buffer
// (4 units of 48 columns): each term is one math.fma, and a call takes the
// units of one row block in [lo, hi) as one pass over their columns, the
// packed block's rows as wide as all of N (192 columns: a stride of 200, an odd
// number of cache lines), in the slice of the run's first unit. The exact kernel
// runs unit by unit, its packed block's rows a unit wide (48: a stride of 56).
// RUN: tlir-opt %s -p 'tlir-contraction-kernels{vector_bytes=64 registers=32 l1_bytes=4096 l1_ways=12 l2_bytes=65536 stack_bytes=8192 numerics=fma}' | filecheck %s
// RUN: tlir-opt %s -p 'tlir-contraction-kernels{vector_bytes=64 registers=32 l1_bytes=4096 l1_ways=12 l2_bytes=65536 stack_bytes=8192}' | filecheck %s --check-prefix=EXACT
// RUN: not tlir-opt %s -p 'tlir-contraction-kernels{numerics=fast}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @main__matmul0
// CHECK-SAME:    %{{.*}}: memref<12800xf64> {llvm.noalias}, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-SAME:    tlir.parallel_extent = 4 : i64
// CHECK-DAG:     %[[LDP:.*]] = arith.constant 200 : index
// CHECK-DAG:     %[[UNITS:.*]] = arith.constant 4 : index
// row blocks from lo / 4 to ceil(hi / 4); in each, its units in [lo, hi) if any
// CHECK:         %[[FIRST:.*]] = arith.divsi %[[LO]], %[[UNITS]] : index
// CHECK:         scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step
// CHECK:           scf.if
// B packed row by row at the wide stride
// CHECK:             arith.muli %{{.*}}, %[[LDP]] : index
// CHECK:             vector.load
// CHECK:             vector.store
// CHECK:             scf.for
// CHECK-COUNT-24:      math.fma %{{.*}} : vector<8xf64>
// CHECK-NOT:         arith.mulf
// CHECK-NOT:         arith.addf %{{.*}} : vector<8xf64>
// CHECK:             scf.yield

// EXACT-LABEL: func.func @main__matmul0
// EXACT-SAME:    %{{.*}}: memref<3584xf64> {llvm.noalias}, %[[LO:.*]]: index, %[[HI:.*]]: index)
// EXACT-NOT:     math.fma
// EXACT:         scf.for %{{.*}} = %[[LO]] to %[[HI]] step
// EXACT-NOT:     math.fma

// BAD: tlir-contraction-kernels: error: numerics must be exact or fma, got 'fast'

func.func @main(%a: tensor<16x64xf64>, %b: tensor<64x192xf64>) -> tensor<16x192xf64> {
  %y = tlir.matmul %a, %b : (tensor<16x64xf64>, tensor<64x192xf64>) -> tensor<16x192xf64>
  func.return %y : tensor<16x192xf64>
}
