// Every rejection rule of docs/ops.md, each with its message and the line of the failing op.
// RUN: tlir-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not tlir-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=FIRST
// FIRST: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tlir.abs' op Expected 1 operand, but got 0
// FIRST-NOT: error

func.func @case0() {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tlir.abs' op Expected 1 operand, but got 0
  %0 = "tlir.abs"() : () -> tensor<f32>
  func.return
}

// -----

func.func @case1(%a: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tlir.add' op Expected 2 operands, but got 1
  %0 = "tlir.add"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case2(%a: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.concat: concat needs at least 2 operands, got 1
  %0 = tlir.concat %a axis = 0 : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case3(%a: tensor<2xi32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.relu: element type must be f32 or f64, got i32
  %0 = tlir.relu %a : (tensor<2xi32>) -> tensor<2xi32>
  func.return
}

// -----

func.func @case4(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.add: attribute f32 expected from variable 'element type', but got f64
  %0 = tlir.add %a, %b : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case5(%a: tensor<?xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.exp: declared result shape [3] does not match the inferred shape [?]
  %0 = tlir.exp %a : (tensor<?xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @case6(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.relu: declared result shape [3, 2] does not match the inferred shape [2, 3]
  %0 = tlir.relu %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

func.func @case7() {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.rand_uniform: element type must be f32 or f64, got i32
  %0 = tlir.rand_uniform {seed = 1 : i64, node_id = 0 : i64} : tensor<2xi32>
  func.return
}

// -----

func.func @case8(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.add: operand shapes [2, 3] and [3, 2] differ (elementwise ops need identical shapes; use broadcast_to)
  %0 = tlir.add %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case9(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.sub: operand shapes [2, 3] and [1, 3] differ
  %0 = tlir.sub %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case10(%a: tensor<f32>, %b: tensor<1xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.mul_elem: operand shapes [] and [1] differ
  %0 = tlir.mul_elem %a, %b : (tensor<f32>, tensor<1xf32>) -> tensor<f32>
  func.return
}

// -----

func.func @case11(%a: tensor<4xf64>, %b: tensor<5xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.max_elem: operand shapes [4] and [5] differ
  %0 = tlir.max_elem %a, %b : (tensor<4xf64>, tensor<5xf64>) -> tensor<4xf64>
  func.return
}

// -----

func.func @case12(%a: tensor<4xf64>, %b: tensor<0xf64>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.min_elem: operand shapes [4] and [0] differ
  %0 = tlir.min_elem %a, %b : (tensor<4xf64>, tensor<0xf64>) -> tensor<4xf64>
  func.return
}

// -----

func.func @case13(%p: tensor<1xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.bernoulli_mask: keep probability must be a scalar (shape []), got [1]
  %0 = tlir.bernoulli_mask %p {seed = 1 : i64, node_id = 1 : i64} : (tensor<1xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @case14(%a: tensor<4xf32>, %e: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.safe_log: epsilon must be a scalar (shape []), got [4]
  %0 = tlir.safe_log %a, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @case15(%a: tensor<2x3x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.permute: perm has 2 entries but the operand has rank 3
  %0 = tlir.permute %a {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  func.return
}

// -----

func.func @case16(%a: tensor<2x3x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.permute: perm entry 0 is repeated
  %0 = tlir.permute %a {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  func.return
}

// -----

func.func @case17(%a: tensor<2x3x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.permute: perm entry 3 is out of range for rank 3
  %0 = tlir.permute %a {perm = array<i64: 0, 3, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return
}

// -----

func.func @case18(%a: tensor<2x3x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.permute: declared result shape [2, 3, 4] does not match the inferred shape [4, 2, 3]
  %0 = tlir.permute %a {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return
}

// -----

func.func @case19(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.transpose: axis1 2 is out of range for rank 2
  %0 = tlir.transpose %a {axis1 = 2 : i64, axis2 = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case20(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.transpose: axis2 5 is out of range for rank 2
  %0 = tlir.transpose %a {axis1 = 0 : i64, axis2 = 5 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case21(%a: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.max_pool: spatial_rank must be positive
  %0 = tlir.max_pool %a {kernel = array<i64>, stride = array<i64>, padding = array<i64>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @case22(%a: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.max_pool: spatial_rank 2 exceeds the operand rank 1
  %0 = tlir.max_pool %a {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<4xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @case23(%a: tensor<4x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.avg_pool: kernel extent is 0 at spatial axis 1
  %0 = tlir.avg_pool %a {kernel = array<i64: 2, 0>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<4x4xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @case24(%a: tensor<4x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.avg_pool: stride is 0 at spatial axis 0
  %0 = tlir.avg_pool %a {kernel = array<i64: 2, 2>, stride = array<i64: 0, 1>, padding = array<i64: 0, 0>} : (tensor<4x4xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @case25(%a: tensor<4x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.max_pool: stride has 1 entries but spatial_rank is 2
  %0 = tlir.max_pool %a {kernel = array<i64: 2, 2>, stride = array<i64: 1>, padding = array<i64: 0, 0>} : (tensor<4x4xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @case26(%a: tensor<4x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.max_pool: padding has 3 entries but spatial_rank is 2
  %0 = tlir.max_pool %a {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0>} : (tensor<4x4xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @case27(%a: tensor<5xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.max_pool: declared result shape [2] does not match the inferred shape [0]
  %0 = tlir.max_pool %a {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 2>} : (tensor<5xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case28(%a: tensor<1x4x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.avg_pool: declared result shape [1, 2, 2] does not match the inferred shape [1, 2, 1]
  %0 = tlir.avg_pool %a {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x4x3xf32>) -> tensor<1x2x2xf32>
  func.return
}

// -----

func.func @case29(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.broadcast_to: cannot broadcast [2, 3] to [3]: source rank 2 exceeds target rank 1
  %0 = tlir.broadcast_to %a : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @case30(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.broadcast_to: cannot broadcast [2, 3] to [4, 4, 3]: extent 2 at source axis 0 is neither 1 nor 4
  %0 = tlir.broadcast_to %a : (tensor<2x3xf32>) -> tensor<4x4x3xf32>
  func.return
}

// -----

func.func @case31(%a: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.broadcast_to: cannot broadcast [2] to [0]: extent 2 at source axis 0 is neither 1 nor 0
  %0 = tlir.broadcast_to %a : (tensor<2xf32>) -> tensor<0xf32>
  func.return
}

// -----

func.func @case32(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reduce_sum: axis 2 is out of range for rank 2
  %0 = tlir.reduce_sum %a axis = 2 : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case33(%a: tensor<2x0xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reduce_mean: reduction axis 1 has extent 0
  %0 = tlir.reduce_mean %a axis = 1 : (tensor<2x0xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case34(%a: tensor<f32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reduce_sum: axis 0 is out of range for rank 0
  %0 = tlir.reduce_sum %a axis = 0 : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @case35(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reduce_mean: declared result shape [2, 1] does not match the inferred shape [2]
  %0 = tlir.reduce_mean %a axis = 1 : (tensor<2x3xf32>) -> tensor<2x1xf32>
  func.return
}

// -----

func.func @case36(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.sum: declared result shape [1] does not match the inferred shape []
  %0 = tlir.sum %a : (tensor<2x3xf32>) -> tensor<1xf32>
  func.return
}

// -----

func.func @case37(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.mse_loss: operand shapes [2, 3] and [2] differ
  %0 = tlir.mse_loss %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<f32>
  func.return
}

// -----

func.func @case38(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.mse_loss: declared result shape [2, 3] does not match the inferred shape []
  %0 = tlir.mse_loss %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case39(%a: tensor<f32>, %b: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: matmul operands must have rank at least 1
  %0 = tlir.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @case40(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: contracted extents differ: 3 (lhs) and 4 (rhs)
  %0 = tlir.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @case41(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: batch shapes [2] and [3] do not broadcast
  %0 = tlir.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<2x2x4xf32>
  func.return
}

// -----

func.func @case42(%a: tensor<3xf32>, %b: tensor<5x2x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: contracted extents differ: 3 (lhs) and 2 (rhs)
  %0 = tlir.matmul %a, %b : (tensor<3xf32>, tensor<5x2x4xf32>) -> tensor<5x4xf32>
  func.return
}

// -----

func.func @case43(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: contracted extents differ: 3 (lhs) and 4 (rhs)
  %0 = tlir.matmul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case44(%a: tensor<3xf32>, %b: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: contracted extents differ: 3 (lhs) and 2 (rhs)
  %0 = tlir.matmul %a, %b : (tensor<3xf32>, tensor<2xf32>) -> tensor<f32>
  func.return
}

// -----

func.func @case45(%a: tensor<1x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.matmul: declared result shape [2, 2, 4] does not match the inferred shape [3, 2, 4]
  %0 = tlir.matmul %a, %b : (tensor<1x2x3xf32>, tensor<3x3x4xf32>) -> tensor<2x2x4xf32>
  func.return
}

// -----

func.func @case46(%x: tensor<f32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.linear: the input must have rank at least 1
  %0 = tlir.linear %x, %w, %b : (tensor<f32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @case47(%x: tensor<2x4xf32>, %w: tensor<12xf32>, %b: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.linear: weight must have shape [out_dim, in_dim], got [12]
  %0 = tlir.linear %x, %w, %b : (tensor<2x4xf32>, tensor<12xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case48(%x: tensor<2x5xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.linear: input last extent 5 does not match in_dim = 4
  %0 = tlir.linear %x, %w, %b : (tensor<2x5xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case49(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.linear: bias shape [4] does not match [out_dim] = [3]
  %0 = tlir.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case50(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.linear: declared result shape [3, 3] does not match the inferred shape [2, 3]
  %0 = tlir.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @case51(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: in_channels must be positive
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 0 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case52(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: out_channels must be positive
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 0 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case53(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: groups must be positive
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 0 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case54(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: in_channels = 2 is not divisible by groups = 4
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 4 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case55(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: out_channels = 4 is not divisible by groups = 3
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 3 : i64, channel_axis = 1 : i64, in_channels = 3 : i64, out_channels = 4 : i64} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case56(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: channel_axis 4 is out of range for rank 4
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 4 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case57(%x: tensor<1x3x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: input channel extent 3 at axis 1 does not match in_channels = 2
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x3x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case58(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: 3 axes follow channel_axis 0 but spatial_rank is 2
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 0 : i64, in_channels = 1 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case59(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x0xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: kernel extent is 0 at spatial axis 1
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 0>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x0xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case60(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: stride is 0 at spatial axis 0
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 0, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case61(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: dilation is 0 at spatial axis 1
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 0>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case62(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: window of extent 7 does not fit the padded input extent 5 at spatial axis 0
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 3, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case63(%x: tensor<1x2x5x2xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: window of extent 3 does not fit the padded input extent 2 at spatial axis 1
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x2xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case64(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: dilation has 1 entries but spatial_rank is 2
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case65(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: padding_after has 3 entries but spatial_rank is 2
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case66(%x: tensor<1x2x5x5xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: weight shape [4, 1, 3, 3] does not match [4, 2, 3, 3]
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case67(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: bias shape [2] does not match [out_channels] = [4]
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case68(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: declared result shape [1, 4, 5, 5] does not match the inferred shape [1, 4, 3, 3]
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  func.return
}

// -----

func.func @case69(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.conv: declared result shape [1, 4, 3, 3] does not match the inferred shape [1, 4, 2, 4]
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 2, 1>, padding = array<i64: 0, 1>, padding_after = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return
}

// -----

func.func @case70(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.batch_norm_eval: channels must be positive
  %0 = tlir.batch_norm_eval %x, %c, %c, %c, %c {channel_axis = 1 : i64, channels = 0 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case71(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.batch_norm_eval: channel_axis 2 is out of range for rank 2
  %0 = tlir.batch_norm_eval %x, %c, %c, %c, %c {channel_axis = 2 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case72(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.batch_norm_eval: channel extent 2 at axis 0 does not match channels = 3
  %0 = tlir.batch_norm_eval %x, %c, %c, %c, %c {channel_axis = 0 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case73(%x: tensor<2x3xf32>, %c: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.batch_norm_eval: gamma shape [4] does not match [channels] = [3]
  %0 = tlir.batch_norm_eval %x, %c, %c, %c, %c {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case74(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.softmax: axis 2 is out of range for rank 2
  %0 = tlir.softmax %a axis = 2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case75(%a: tensor<f32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.softmax: axis 0 is out of range for rank 0
  %0 = tlir.softmax %a axis = 0 : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @case76(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.hard_masked_softmax: mask shape [3, 2] does not match operand shape [2, 3]
  %0 = tlir.hard_masked_softmax %a {mask = dense<true> : tensor<3x2xi1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case77(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.hard_masked_softmax: mask must be a dense i1 attribute, got tensor<2x3xf32>
  %0 = tlir.hard_masked_softmax %a {mask = dense<1.0> : tensor<2x3xf32>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case78(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.layernorm: axis 2 is out of range for rank 2
  %0 = tlir.layernorm %a {axis = 2 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case79(%a: tensor<2x0xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.layernorm: normalized shape [0] has no elements
  %0 = tlir.layernorm %a {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2x0xf32>) -> tensor<2x0xf32>
  func.return
}

// -----

func.func @case80(%a: tensor<2x3xf32>, %g: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.layernorm: gamma shape [3] does not match the normalized shape [2, 3]
  %0 = tlir.layernorm %a affine(%g, %g) {axis = 0 : i64, eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case81(%a: tensor<2x3xf32>, %g: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.layernorm: gamma and beta must be given together
  %0 = "tlir.layernorm"(%a, %g) <{axis = 1 : i64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case82(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.reshape: cannot reshape [2, 3] (6 elements) to [4] (4 elements)
  %0 = tlir.reshape %a : (tensor<2x3xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @case83(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.flatten: declared result shape [2, 3] does not match the inferred shape [6]
  %0 = tlir.flatten %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @case84(%a: tensor<2x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.concat: axis 2 is out of range for rank 2
  %0 = tlir.concat %a, %a axis = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @case85(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.concat: operand 1 has rank 1 but operand 0 has rank 2
  %0 = tlir.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @case86(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.concat: operand 1 has extent 4 at axis 1 but operand 0 has 3
  %0 = tlir.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @case87(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.concat: declared result shape [4, 3] does not match the inferred shape [5, 3]
  %0 = tlir.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @case88() {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.const: value type tensor<3xf32> does not match the result type tensor<2xf32>
  %0 = tlir.const {value = dense<1.0> : tensor<3xf32>} : tensor<2xf32>
  func.return
}

// -----

func.func @case89() {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.const: value type tensor<2xf64> does not match the result type tensor<2xf32>
  %0 = tlir.const {value = dense<1.0> : tensor<2xf64>} : tensor<2xf32>
  func.return
}

// -----

func.func @case90(%a: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.custom: callee @missing is not defined
  %0 = tlir.custom @missing(%a) {name = "k"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @case91(%a: tensor<2xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.custom: operand and result types do not match the type (tensor<3xf32>) -> tensor<3xf32> of callee @k
  %0 = tlir.custom @k(%a) {name = "k"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
func.func @k(%x: tensor<3xf32>) -> tensor<3xf32> {
  func.return %x : tensor<3xf32>
}

// -----

func.func @self_call(%a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.custom: callee @self_call calls back into @self_call (custom callees may not recurse)
  %0 = tlir.custom @self_call(%a) {name = "k"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @ping(%a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tlir.custom: callee @pong calls back into @ping (custom callees may not recurse)
  %0 = tlir.custom @pong(%a) {name = "k"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @pong(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tlir.abs"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = tlir.custom @ping(%0) {name = "k"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
