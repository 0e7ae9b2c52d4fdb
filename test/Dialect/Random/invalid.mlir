// RUN: tlir-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @uniform_int(%d: i32) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: random.uniform: expected f32 or f64, got i64
  %u = "random.uniform"(%d) : (i32) -> i64
  func.return
}

// -----

func.func @draw_from_i32_key(%k: i32, %i: index) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'random.draw' op operand 'key' at position 0 does not verify
  %d = "random.draw"(%k, %i) : (i32, index) -> i32
  func.return
}

// -----

func.func @draw_from_i64_index(%k: i64, %i: i64) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'random.draw' op operand 'index' at position 1 does not verify
  %d = "random.draw"(%k, %i) : (i64, i64) -> i32
  func.return
}

// -----

func.func @bernoulli_mixed(%p: f32, %u: f64) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'random.bernoulli' op operand 'uniform' at position 1 does not verify
  %b = "random.bernoulli"(%p, %u) : (f32, f64) -> f32
  func.return
}

// -----

func.func @bernoulli_int(%p: i32, %u: i32) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'random.bernoulli' op operand 'probability' at position 0 does not verify
  %b = "random.bernoulli"(%p, %u) : (i32, i32) -> i32
  func.return
}

// -----

func.func @key_without_node_id() {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'random.key' op {{.*}}node_id
  %k = "random.key"() <{seed = 1 : i64}> : () -> i64
  func.return
}
