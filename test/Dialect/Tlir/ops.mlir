// Round trip of every tlir op: custom form, and generic form back to custom.
// RUN: tlir-opt %s | tlir-opt | filecheck %s
// RUN: tlir-opt %s --print-op-generic | tlir-opt | filecheck %s
// RUN: tlir-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @basic
// CHECK: %{{.*}} = tlir.const {value = dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>} : tensor<2xf32>
// CHECK: %{{.*}} = tlir.const {value = dense<3.000000e+00> : tensor<f64>} : tensor<f64>
// CHECK: %{{.*}} = tlir.const {value = dense<> : tensor<0x3xf32>} : tensor<0x3xf32>
// CHECK: %{{.*}} = tlir.detach %{{.*}} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK: %{{.*}} = tlir.rand_uniform {seed = 7 : i64, node_id = 12 : i64} : tensor<2x3xf32>
// CHECK: %{{.*}} = tlir.rand_uniform {seed = -1 : i64, node_id = 0 : i64} : tensor<f64>
// CHECK: %{{.*}} = tlir.bernoulli_mask %{{.*}} {seed = 42 : i64, node_id = 3 : i64} : (tensor<f64>) -> tensor<8xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "basic"
// GENERIC: "tlir.const"() <{value = dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// GENERIC: "tlir.rand_uniform"() <{seed = 7 : i64, node_id = 12 : i64}> : () -> tensor<2x3xf32>
// GENERIC: "tlir.bernoulli_mask"(%{{.*}}) <{seed = 42 : i64, node_id = 3 : i64}> : (tensor<f64>) -> tensor<8xf64>
func.func @basic(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = tlir.const {value = dense<[1.0, -2.5]> : tensor<2xf32>} : tensor<2xf32>
  %s = tlir.const {value = dense<3.0> : tensor<f64>} : tensor<f64>
  %e = tlir.const {value = dense<> : tensor<0x3xf32>} : tensor<0x3xf32>
  %d = tlir.detach %x : (tensor<2xf32>) -> tensor<2xf32>
  %r = tlir.rand_uniform {seed = 7 : i64, node_id = 12 : i64} : tensor<2x3xf32>
  %r0 = tlir.rand_uniform {seed = 18446744073709551615 : i64, node_id = 0 : i64} : tensor<f64>
  %m = tlir.bernoulli_mask %s {seed = 42 : i64, node_id = 3 : i64} : (tensor<f64>) -> tensor<8xf64>
  func.return %d : tensor<2xf32>
}

// CHECK-LABEL: func.func @const_exact_bits
// CHECK: tlir.const {value = dense<[0.33333333333333331, 0x4170000010000000, 1.000000e-300]> : tensor<3xf64>}
// CHECK: tlir.const {value = dense<[0x4B800000, 0.333333343]> : tensor<2xf32>}
func.func @const_exact_bits() -> tensor<2xf32> {
  %a = tlir.const {value = dense<[0.3333333333333333, 16777217.0, 1.0e-300]> : tensor<3xf64>} : tensor<3xf64>
  %b = tlir.const {value = dense<[16777216.0, 0.33333334]> : tensor<2xf32>} : tensor<2xf32>
  func.return %b : tensor<2xf32>
}

// CHECK-LABEL: func.func @custom
// CHECK: %{{.*}} = tlir.custom @kernel(%{{.*}}, %{{.*}}) {name = "fused gelu"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// GENERIC: "tlir.custom"(%{{.*}}, %{{.*}}) <{callee = @kernel, name = "fused gelu"}> : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @custom(%x: tensor<4xf32>, %a: tensor<f32>) -> tensor<4xf32> {
  %y = tlir.custom @kernel(%x, %a) {name = "fused gelu"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func @kernel(%x: tensor<4xf32>, %a: tensor<f32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @elementwise_binary
// CHECK: tlir.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tlir.sub %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tlir.mul_elem %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tlir.max_elem %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tlir.min_elem %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tlir.add %{{.*}}, %{{.*}} : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK: tlir.mul_elem %{{.*}}, %{{.*}} : (tensor<0x5xf64>, tensor<0x5xf64>) -> tensor<0x5xf64>
// GENERIC: "tlir.max_elem"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @elementwise_binary(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %s: tensor<f64>, %z: tensor<0x5xf64>) -> tensor<2x3xf32> {
  %0 = tlir.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tlir.sub %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tlir.mul_elem %1, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tlir.max_elem %2, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tlir.min_elem %3, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = tlir.add %s, %s : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %6 = tlir.mul_elem %z, %z : (tensor<0x5xf64>, tensor<0x5xf64>) -> tensor<0x5xf64>
  func.return %4 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elementwise_unary
// CHECK: tlir.abs %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.sqrt %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.inv %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.relu %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.tanh %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.sigmoid %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.exp %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.log %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.sin %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.cos %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.softplus %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: tlir.safe_log %{{.*}}, %{{.*}} : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK: tlir.relu %{{.*}} : (tensor<f32>) -> tensor<f32>
// CHECK: tlir.exp %{{.*}} : (tensor<3x0xf32>) -> tensor<3x0xf32>
func.func @elementwise_unary(%x: tensor<4xf64>, %e: tensor<f64>, %s: tensor<f32>, %z: tensor<3x0xf32>) -> tensor<4xf64> {
  %0 = tlir.abs %x : (tensor<4xf64>) -> tensor<4xf64>
  %1 = tlir.sqrt %0 : (tensor<4xf64>) -> tensor<4xf64>
  %2 = tlir.inv %1 : (tensor<4xf64>) -> tensor<4xf64>
  %3 = tlir.relu %2 : (tensor<4xf64>) -> tensor<4xf64>
  %4 = tlir.tanh %3 : (tensor<4xf64>) -> tensor<4xf64>
  %5 = tlir.sigmoid %4 : (tensor<4xf64>) -> tensor<4xf64>
  %6 = tlir.exp %5 : (tensor<4xf64>) -> tensor<4xf64>
  %7 = tlir.log %6 : (tensor<4xf64>) -> tensor<4xf64>
  %8 = tlir.sin %7 : (tensor<4xf64>) -> tensor<4xf64>
  %9 = tlir.cos %8 : (tensor<4xf64>) -> tensor<4xf64>
  %10 = tlir.softplus %9 : (tensor<4xf64>) -> tensor<4xf64>
  %11 = tlir.safe_log %10, %e : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %12 = tlir.relu %s : (tensor<f32>) -> tensor<f32>
  %13 = tlir.exp %z : (tensor<3x0xf32>) -> tensor<3x0xf32>
  func.return %11 : tensor<4xf64>
}

// CHECK-LABEL: func.func @data_movement
// CHECK: tlir.permute %{{.*}} {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK: tlir.permute %{{.*}} {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
// CHECK: tlir.transpose %{{.*}} {axis1 = 0 : i64, axis2 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK: tlir.transpose %{{.*}} {axis1 = 1 : i64, axis2 = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: tlir.broadcast_to %{{.*}} : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
// CHECK: tlir.broadcast_to %{{.*}} : (tensor<1xf32>) -> tensor<0xf32>
// CHECK: tlir.broadcast_to %{{.*}} : (tensor<f32>) -> tensor<2x2xf32>
// CHECK: tlir.reshape %{{.*}} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: tlir.reshape %{{.*}} : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: tlir.flatten %{{.*}} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK: tlir.flatten %{{.*}} : (tensor<f32>) -> tensor<1xf32>
// CHECK: tlir.concat %{{.*}}, %{{.*}}, %{{.*}} axis = 1 : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x0x4xf32>) -> tensor<2x4x4xf32>
// GENERIC: "tlir.concat"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 1 : i64}>
func.func @data_movement(%x: tensor<2x3x4xf32>, %c: tensor<3x1xf32>, %one: tensor<1xf32>, %s: tensor<f32>, %u: tensor<1x1xf32>, %y: tensor<2x1x4xf32>, %z: tensor<2x0x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tlir.permute %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = tlir.permute %s {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
  %2 = tlir.transpose %x {axis1 = 0 : i64, axis2 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %3 = tlir.transpose %x {axis1 = 1 : i64, axis2 = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = tlir.broadcast_to %c : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  %5 = tlir.broadcast_to %one : (tensor<1xf32>) -> tensor<0xf32>
  %6 = tlir.broadcast_to %s : (tensor<f32>) -> tensor<2x2xf32>
  %7 = tlir.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %8 = tlir.reshape %u : (tensor<1x1xf32>) -> tensor<f32>
  %9 = tlir.flatten %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %10 = tlir.flatten %s : (tensor<f32>) -> tensor<1xf32>
  %11 = tlir.concat %x, %y, %z axis = 1 : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x0x4xf32>) -> tensor<2x4x4xf32>
  func.return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reductions
// CHECK: tlir.reduce_sum %{{.*}} axis = 0 : (tensor<2x3xf64>) -> tensor<3xf64>
// CHECK: tlir.reduce_mean %{{.*}} axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
// CHECK: tlir.reduce_sum %{{.*}} axis = 0 : (tensor<3x0xf64>) -> tensor<0xf64>
// CHECK: tlir.sum %{{.*}} : (tensor<2x3xf64>) -> tensor<f64>
// CHECK: tlir.sum %{{.*}} : (tensor<0xf64>) -> tensor<f64>
// CHECK: tlir.mse_loss %{{.*}}, %{{.*}} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
// GENERIC: "tlir.reduce_mean"(%{{.*}}) <{axis = 1 : i64}> : (tensor<2x3xf64>) -> tensor<2xf64>
func.func @reductions(%x: tensor<2x3xf64>, %z: tensor<3x0xf64>, %e: tensor<0xf64>) -> tensor<f64> {
  %0 = tlir.reduce_sum %x axis = 0 : (tensor<2x3xf64>) -> tensor<3xf64>
  %1 = tlir.reduce_mean %x axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
  %2 = tlir.reduce_sum %z axis = 0 : (tensor<3x0xf64>) -> tensor<0xf64>
  %3 = tlir.sum %x : (tensor<2x3xf64>) -> tensor<f64>
  %4 = tlir.sum %e : (tensor<0xf64>) -> tensor<f64>
  %5 = tlir.mse_loss %x, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>
  func.return %5 : tensor<f64>
}

// Every rank case of matmul (docs/ops.md#matmul), batch broadcasting included.
// CHECK-LABEL: func.func @matmul
// CHECK: tlir.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: tlir.matmul %{{.*}}, %{{.*}} : (tensor<5x1x2x3xf32>, tensor<7x3x4xf32>) -> tensor<5x7x2x4xf32>
// CHECK: tlir.matmul %{{.*}}, %{{.*}} : (tensor<1x2x3xf32>, tensor<0x3x4xf32>) -> tensor<0x2x4xf32>
// CHECK: tlir.matmul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<7x3x4xf32>) -> tensor<7x4xf32>
// CHECK: tlir.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// CHECK: tlir.matmul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %ba: tensor<5x1x2x3xf32>, %bb: tensor<7x3x4xf32>, %u: tensor<1x2x3xf32>, %z: tensor<0x3x4xf32>, %v: tensor<3xf32>) -> tensor<f32> {
  %0 = tlir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = tlir.matmul %ba, %bb : (tensor<5x1x2x3xf32>, tensor<7x3x4xf32>) -> tensor<5x7x2x4xf32>
  %2 = tlir.matmul %u, %z : (tensor<1x2x3xf32>, tensor<0x3x4xf32>) -> tensor<0x2x4xf32>
  %3 = tlir.matmul %v, %bb : (tensor<3xf32>, tensor<7x3x4xf32>) -> tensor<7x4xf32>
  %4 = tlir.matmul %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %5 = tlir.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  func.return %5 : tensor<f32>
}

// CHECK-LABEL: func.func @linear
// CHECK: tlir.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x5x4xf64>, tensor<3x4xf64>, tensor<3xf64>) -> tensor<2x5x3xf64>
// CHECK: tlir.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xf64>, tensor<3x4xf64>, tensor<3xf64>) -> tensor<3xf64>
func.func @linear(%x: tensor<2x5x4xf64>, %v: tensor<4xf64>, %w: tensor<3x4xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %0 = tlir.linear %x, %w, %b : (tensor<2x5x4xf64>, tensor<3x4xf64>, tensor<3xf64>) -> tensor<2x5x3xf64>
  %1 = tlir.linear %v, %w, %b : (tensor<4xf64>, tensor<3x4xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %1 : tensor<3xf64>
}

// Pooling: padding, 1-D and 3-D windows, no leading axes, and the zero-extent quirk.
// CHECK-LABEL: func.func @pooling
// CHECK: tlir.max_pool %{{.*}} {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// CHECK: tlir.avg_pool %{{.*}} {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: tlir.max_pool %{{.*}} {kernel = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<5xf32>) -> tensor<3xf32>
// CHECK: tlir.avg_pool %{{.*}} {kernel = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>} : (tensor<2x3x3x3xf32>) -> tensor<2x2x2x2xf32>
// CHECK: tlir.max_pool %{{.*}} {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 2>} : (tensor<5xf32>) -> tensor<0xf32>
// CHECK: tlir.avg_pool %{{.*}} {kernel = array<i64: 7>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<5xf32>) -> tensor<0xf32>
func.func @pooling(%x: tensor<1x2x4x4xf32>, %v: tensor<5xf32>, %c: tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %0 = tlir.max_pool %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %1 = tlir.avg_pool %x {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = tlir.max_pool %v {kernel = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<5xf32>) -> tensor<3xf32>
  %3 = tlir.avg_pool %c {kernel = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>} : (tensor<2x3x3x3xf32>) -> tensor<2x2x2x2xf32>
  %4 = tlir.max_pool %v {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 2>} : (tensor<5xf32>) -> tensor<0xf32>
  %5 = tlir.avg_pool %v {kernel = array<i64: 7>, stride = array<i64: 1>, padding = array<i64: 0>} : (tensor<5xf32>) -> tensor<0xf32>
  func.return %0 : tensor<1x2x2x2xf32>
}

// Convolution: plain NCHW, groups, dilation, asymmetric padding, unbatched 1-D.
// CHECK-LABEL: func.func @conv
// CHECK: tlir.conv %{{.*}}, %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
// CHECK: tlir.conv {{.*}}groups = 2 : i64{{.*}} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x3xf32>
// CHECK: tlir.conv {{.*}}dilation = array<i64: 2, 2>{{.*}} : (tensor<1x2x5x5xf32>, tensor<4x2x2x2xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
// CHECK: tlir.conv {{.*}}padding = array<i64: 0, 2>, padding_after = array<i64: 1, 0>{{.*}} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x5xf32>
// CHECK: tlir.conv {{.*}}channel_axis = 0 : i64{{.*}} : (tensor<3x7xf64>, tensor<2x3x3xf64>, tensor<2xf64>) -> tensor<2x3xf64>
// GENERIC: "tlir.conv"(%{{.*}}, %{{.*}}, %{{.*}}) <{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64}>
func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>, %xg: tensor<1x4x5x5xf32>, %wg: tensor<6x4x3x3xf32>, %bg: tensor<6xf32>, %wd: tensor<4x2x2x2xf32>, %x1: tensor<3x7xf64>, %w1: tensor<2x3x3xf64>, %b1: tensor<2xf64>) -> tensor<1x4x5x5xf32> {
  %0 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  %1 = tlir.conv %xg, %wg, %bg {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 6 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x3xf32>
  %2 = tlir.conv %x, %wd, %b {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 2, 2>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x2x2xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %3 = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 2, 1>, padding = array<i64: 0, 2>, padding_after = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x5xf32>
  %4 = tlir.conv %x1, %w1, %b1 {kernel = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 0>, padding_after = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64, channel_axis = 0 : i64, in_channels = 3 : i64, out_channels = 2 : i64} : (tensor<3x7xf64>, tensor<2x3x3xf64>, tensor<2xf64>) -> tensor<2x3xf64>
  func.return %0 : tensor<1x4x5x5xf32>
}

// CHECK-LABEL: func.func @normalization
// CHECK: tlir.batch_norm_eval %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
// CHECK: tlir.batch_norm_eval {{.*}} : (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// CHECK: tlir.softmax %{{.*}} axis = 1 : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
// CHECK: tlir.hard_masked_softmax %{{.*}} {mask = dense<{{\[\[}}true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tlir.hard_masked_softmax %{{.*}} {mask = dense<true> : tensor<i1>} : (tensor<f32>) -> tensor<f32>
// CHECK: tlir.layernorm %{{.*}} affine(%{{.*}}, %{{.*}}) {axis = 2 : i64, eps = 1.000000e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x3x4x4xf32>
// CHECK: tlir.layernorm %{{.*}} {axis = 0 : i64, eps = 1.000000e-03 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC: "tlir.layernorm"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 2 : i64, eps = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>}>
func.func @normalization(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %m: tensor<5x3xf32>, %y: tensor<2x3xf32>, %s: tensor<f32>, %g: tensor<4x4xf32>) -> tensor<2x3x4x4xf32> {
  %0 = tlir.batch_norm_eval %x, %c, %c, %c, %c {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %1 = tlir.batch_norm_eval %m, %c, %c, %c, %c {channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64} : (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  %2 = tlir.softmax %0 axis = 1 : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %3 = tlir.hard_masked_softmax %y {mask = dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tlir.hard_masked_softmax %s {mask = dense<true> : tensor<i1>} : (tensor<f32>) -> tensor<f32>
  %5 = tlir.layernorm %2 affine(%g, %g) {axis = 2 : i64, eps = 1.0e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x3x4x4xf32>
  %6 = tlir.layernorm %y {axis = 0 : i64, eps = 1.0e-03 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %5 : tensor<2x3x4x4xf32>
}
