// The batch `?`: ops whose rules hold for any extent take it (the result's
// `?` where the rule carries the operand's), in custom and generic form.
// RUN: tlir-opt %s | tlir-opt | filecheck %s
// RUN: tlir-opt %s --print-op-generic | tlir-opt | filecheck %s

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%{{.*}}: tensor<?x1x4x4xf32>) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<f32>)
// CHECK: tlir.reshape %{{.*}} : (tensor<?x1x4x4xf32>) -> tensor<?x16xf32>
// CHECK: tlir.flatten %{{.*}} : (tensor<?x16xf32>) -> tensor<?xf32>
// CHECK: tlir.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: tlir.broadcast_to %{{.*}} : (tensor<1x3xf32>) -> tensor<?x3xf32>
// CHECK: tlir.softmax %{{.*}} axis = 1 : (tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK: tlir.concat %{{.*}}, %{{.*}} axis = 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK: tlir.reduce_sum %{{.*}} axis = 1 : (tensor<?x3xf32>) -> tensor<?xf32>
// CHECK: tlir.mse_loss %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<f32>
func.func @mlp(%x: tensor<?x1x4x4xf32>) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<f32>) {
  %w = tlir.const {value = dense<0.5> : tensor<3x16xf32>} : tensor<3x16xf32>
  %b = tlir.const {value = dense<0.25> : tensor<3xf32>} : tensor<3xf32>
  %one = tlir.const {value = dense<1.0> : tensor<1x3xf32>} : tensor<1x3xf32>
  %r = tlir.reshape %x : (tensor<?x1x4x4xf32>) -> tensor<?x16xf32>
  %f = tlir.flatten %r : (tensor<?x16xf32>) -> tensor<?xf32>
  %y = tlir.linear %r, %w, %b : (tensor<?x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %o = tlir.broadcast_to %one : (tensor<1x3xf32>) -> tensor<?x3xf32>
  %z = tlir.add %y, %o : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %s = tlir.softmax %z axis = 1 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %c = tlir.concat %s, %z axis = 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %t = tlir.reduce_sum %c axis = 1 : (tensor<?x3xf32>) -> tensor<?xf32>
  %l = tlir.mse_loss %s, %z : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<f32>
  func.return %s, %t, %l : tensor<?x3xf32>, tensor<?xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @cnn
// CHECK: tlir.conv
// CHECK-SAME: (tensor<?x2x6x6xf64>, tensor<4x2x3x3xf64>, tensor<4xf64>) -> tensor<?x4x4x4xf64>
// CHECK: tlir.max_pool
// CHECK-SAME: (tensor<?x4x4x4xf64>) -> tensor<?x4x2x2xf64>
// CHECK: tlir.layernorm
// CHECK: tlir.permute
// CHECK-SAME: (tensor<?x4x2x2xf64>) -> tensor<4x?x2x2xf64>
// CHECK: tlir.matmul
// CHECK-SAME: (tensor<?x4x2x2xf64>, tensor<2x5xf64>) -> tensor<?x4x2x5xf64>
func.func @cnn(%x: tensor<?x2x6x6xf64>) -> tensor<?x4x2x5xf64> {
  %w = tlir.const {value = dense<0.5> : tensor<4x2x3x3xf64>} : tensor<4x2x3x3xf64>
  %b = tlir.const {value = dense<0.25> : tensor<4xf64>} : tensor<4xf64>
  %m = tlir.const {value = dense<0.5> : tensor<2x5xf64>} : tensor<2x5xf64>
  %c = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<?x2x6x6xf64>, tensor<4x2x3x3xf64>, tensor<4xf64>) -> tensor<?x4x4x4xf64>
  %p = tlir.max_pool %c {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<?x4x4x4xf64>) -> tensor<?x4x2x2xf64>
  %n = tlir.layernorm %p {axis = 1 : i64, eps = 1.0e-05 : f64} : (tensor<?x4x2x2xf64>) -> tensor<?x4x2x2xf64>
  %t = tlir.permute %n {perm = array<i64: 1, 0, 2, 3>} : (tensor<?x4x2x2xf64>) -> tensor<4x?x2x2xf64>
  %y = tlir.matmul %n, %m : (tensor<?x4x2x2xf64>, tensor<2x5xf64>) -> tensor<?x4x2x5xf64>
  func.return %y : tensor<?x4x2x5xf64>
}
