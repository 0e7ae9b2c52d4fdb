// convert-random-to-arith: keys fold to constants (docs/random.md#test-vectors: seed 0, node 1 ->
// 0x910A2DEC89025CC1; seed 42, node 3 -> 0xF7E9F3F88CC04AD6, printed as signed i64);
// a draw is SplitMix64's mix of key + index in wrapping i64 arithmetic, low 32 bits;
// the uniform is extui + sitofp (= uitofp) divided by 2^32; the keep test is
// p > 0 and (not p < 1 or p > u).
// RUN: tlir-opt %s --split-input-file -p convert-random-to-arith | filecheck %s

// CHECK-LABEL: func.func @keys
// CHECK-NEXT:    %[[K1:.*]] = arith.constant -7995527694508729151 : i64
// CHECK-NEXT:    %[[K2:.*]] = arith.constant -582666427928917290 : i64
// CHECK-NOT:     random.
func.func @keys() -> (i64, i64) {
  %k1 = random.key {seed = 0 : i64, node_id = 1 : i64} : i64
  %k2 = random.key {seed = 42 : i64, node_id = 3 : i64} : i64
  func.return %k1, %k2 : i64, i64
}

// -----

// CHECK-LABEL: func.func @draw
// CHECK-SAME:    (%[[K:.*]]: i64, %[[I:.*]]: index)
// CHECK-NEXT:    %[[IX:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:    %[[X:.*]] = arith.addi %[[K]], %[[IX]] : i64
// CHECK-NEXT:    %[[G:.*]] = arith.constant -7046029254386353131 : i64
// CHECK-NEXT:    %[[Z1:.*]] = arith.addi %[[X]], %[[G]] : i64
// CHECK-NEXT:    %[[C30:.*]] = arith.constant 30 : i64
// CHECK-NEXT:    %[[S30:.*]] = arith.shrui %[[Z1]], %[[C30]] : i64
// CHECK-NEXT:    %[[X30:.*]] = arith.xori %[[Z1]], %[[S30]] : i64
// CHECK-NEXT:    %[[M1:.*]] = arith.constant -4658895280553007687 : i64
// CHECK-NEXT:    %[[Z2:.*]] = arith.muli %[[X30]], %[[M1]] : i64
// CHECK-NEXT:    %[[C27:.*]] = arith.constant 27 : i64
// CHECK-NEXT:    %[[S27:.*]] = arith.shrui %[[Z2]], %[[C27]] : i64
// CHECK-NEXT:    %[[X27:.*]] = arith.xori %[[Z2]], %[[S27]] : i64
// CHECK-NEXT:    %[[M2:.*]] = arith.constant -7723592293110705685 : i64
// CHECK-NEXT:    %[[Z3:.*]] = arith.muli %[[X27]], %[[M2]] : i64
// CHECK-NEXT:    %[[C31:.*]] = arith.constant 31 : i64
// CHECK-NEXT:    %[[S31:.*]] = arith.shrui %[[Z3]], %[[C31]] : i64
// CHECK-NEXT:    %[[MIX:.*]] = arith.xori %[[Z3]], %[[S31]] : i64
// CHECK-NEXT:    %[[U:.*]] = arith.trunci %[[MIX]] : i64 to i32
// CHECK-NEXT:    func.return %[[U]] : i32
func.func @draw(%k: i64, %i: index) -> i32 {
  %d = random.draw %k, %i : i32
  func.return %d : i32
}

// -----

// CHECK-LABEL: func.func @uniform
// CHECK-SAME:    (%[[D:.*]]: i32)
// CHECK-NEXT:    %[[W:.*]] = arith.extui %[[D]] : i32 to i64
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[W]] : i64 to f64
// CHECK-NEXT:    %[[TWO32:.*]] = arith.constant 0x41F0000000000000 : f64
// CHECK-NEXT:    %[[U:.*]] = arith.divf %[[F]], %[[TWO32]] : f64
// CHECK-NEXT:    %[[W2:.*]] = arith.extui %[[D]] : i32 to i64
// CHECK-NEXT:    %[[F32:.*]] = arith.sitofp %[[W2]] : i64 to f32
// CHECK-NEXT:    %[[TWO32F:.*]] = arith.constant 4.2949673e+09 : f32
// CHECK-NEXT:    %[[U32:.*]] = arith.divf %[[F32]], %[[TWO32F]] : f32
func.func @uniform(%d: i32) -> (f64, f32) {
  %u = random.uniform %d : f64
  %v = random.uniform %d : f32
  func.return %u, %v : f64, f32
}

// -----

// CHECK-LABEL: func.func @bernoulli
// CHECK-SAME:    (%[[P:.*]]: f32, %[[U:.*]]: f32)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    %[[POS:.*]] = arith.cmpf ogt, %[[P]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[BELOW:.*]] = arith.cmpf olt, %[[P]], %[[ONE]] : f32
// CHECK-NEXT:    %[[NOTBELOW:.*]] = arith.xori %[[BELOW]], %[[TRUE]] : i1
// CHECK-NEXT:    %[[BEATS:.*]] = arith.cmpf ogt, %[[P]], %[[U]] : f32
// CHECK-NEXT:    %[[EITHER:.*]] = arith.ori %[[NOTBELOW]], %[[BEATS]] : i1
// CHECK-NEXT:    %[[KEEP:.*]] = arith.andi %[[POS]], %[[EITHER]] : i1
// CHECK-NEXT:    %[[BIT:.*]] = arith.select %[[KEEP]], %[[ONE]], %[[ZERO]] : f32
// CHECK-NEXT:    func.return %[[BIT]] : f32
func.func @bernoulli(%p: f32, %u: f32) -> f32 {
  %b = random.bernoulli %p, %u : f32
  func.return %b : f32
}

// -----

// Inside a linalg.generic body, after convert-tlir-to-linalg.
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg,convert-random-to-arith | filecheck %s --check-prefix=PIPE
// PIPE-LABEL: func.func @rand_in_generic
// PIPE:         %[[KEY:.*]] = arith.constant -582666427928917290 : i64
// PIPE:         linalg.generic
// PIPE:           %[[IX:.*]] = arith.index_cast %{{.*}} : index to i64
// PIPE-NEXT:      arith.addi %[[KEY]], %[[IX]] : i64
// PIPE:           arith.trunci %{{.*}} : i64 to i32
// PIPE:           arith.sitofp %{{.*}} : i64 to f64
// PIPE-NOT:     random.
func.func @rand_in_generic() -> tensor<8xf64> {
  %0 = tlir.rand_uniform {seed = 42 : i64, node_id = 3 : i64} : tensor<8xf64>
  func.return %0 : tensor<8xf64>
}
