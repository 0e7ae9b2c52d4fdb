// Derivative folds that are contractions become contractions (passes/autodiff/contractions.py):
// the JVP of linear with +0 parameter tangents is linear(dx + (+0·x), W, +0) (the elementwise
// term makes the tangent NaN where a non-finite x enters the fold); the VJP of an unbroadcast matmul is two matmuls with
// transposes; the VJP of a stride-1 conv has its kernel gradient as one tlir_ad.conv_kernel_grad
// on the padded input and g ([c, k…, oc], then transposed to the weight's layout) and its input
// gradient as one tlir_ad.conv_input_grad on g and the transposed weight.
// RUN: tlir-opt %s -p 'tlir-jvp{function=lin}' | filecheck %s --check-prefix=LIN
// RUN: tlir-opt %s -p 'tlir-vjp{function=mm}' | filecheck %s --check-prefix=MM
// RUN: tlir-opt %s -p 'tlir-vjp{function=cv}' | filecheck %s --check-prefix=CV
// RUN: tlir-opt %s -p 'tlir-jvp{function=lin params=true}' | filecheck %s --check-prefix=SEEDED

// LIN-LABEL: func.func @lin_jvp(%x: tensor<2x3xf64>, %dx: tensor<2x3xf64>)
// LIN:         %y = tlir.linear %x, %w, %b
// LIN:         [[DXP:%.+]] = tlir_ad.fold ins(%dx, %x) init({{.*}}) {bounds = array<i64: 2, 3>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"]}
// LIN-NEXT:      ^bb0([[D:%.+]]: f64, [[XV:%.+]]: f64, {{%.+}}: f64):
// LIN-NEXT:      [[Z:%.+]] = arith.constant 0.000000e+00 : f64
// LIN-NEXT:      [[P:%.+]] = arith.mulf [[Z]], [[XV]] : f64
// LIN-NEXT:      [[S:%.+]] = arith.addf [[D]], [[P]] : f64
// LIN-NEXT:      tlir_ad.yield [[S]] : f64
// LIN:         [[T:%.+]] = tlir.linear [[DXP]], %w, [[DB:%.+]] : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
// LIN-NEXT:    func.return %y, [[T]]

// MM-LABEL: func.func @mm_vjp
// MM-NEXT:    %y = tlir.matmul %a, %b
// MM-NEXT:    [[BT:%.+]] = tlir.transpose %b {axis1 = 1 : i64, axis2 = 2 : i64} : (tensor<2x4x5xf64>) -> tensor<2x5x4xf64>
// MM-NEXT:    [[DA:%.+]] = tlir.matmul %dy0, [[BT]] : (tensor<2x3x5xf64>, tensor<2x5x4xf64>) -> tensor<2x3x4xf64>
// MM-NEXT:    [[AT:%.+]] = tlir.transpose %a {axis1 = 1 : i64, axis2 = 2 : i64} : (tensor<2x3x4xf64>) -> tensor<2x4x3xf64>
// MM-NEXT:    [[DB:%.+]] = tlir.matmul [[AT]], %dy0 : (tensor<2x4x3xf64>, tensor<2x3x5xf64>) -> tensor<2x4x5xf64>
// MM-NEXT:    func.return %y, [[DA]], [[DB]]

// CV-LABEL: func.func @cv_vjp
// CV:         %y = tlir.conv %x, %w, %b
// CV-NEXT:    [[WT:%.+]] = tlir.transpose %w {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<5x3x3x3xf64>) -> tensor<3x5x3x3xf64>
// CV-NEXT:    [[DX:%.+]] = tlir_ad.conv_input_grad %dy0, [[WT]] {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64} : (tensor<2x5x4x4xf64>, tensor<3x5x3x3xf64>) -> tensor<2x3x4x4xf64>
// CV:         [[XP:%.+]] = tlir_ad.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>
// CV-NEXT:    [[DKT:%.+]] = tlir_ad.conv_kernel_grad [[XP]], %dy0 {stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, channel_axis = 1 : i64} : (tensor<2x3x6x6xf64>, tensor<2x5x4x4xf64>) -> tensor<3x3x3x5xf64>
// CV-NEXT:    [[M:%.+]] = tlir.reshape [[DKT]] : (tensor<3x3x3x5xf64>) -> tensor<27x5xf64>
// CV-NEXT:    [[MT:%.+]] = tlir.transpose [[M]] {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<27x5xf64>) -> tensor<5x27xf64>
// CV-NEXT:    [[DK:%.+]] = tlir.reshape [[MT]] : (tensor<5x27xf64>) -> tensor<5x3x3x3xf64>
// CV-NOT:     tlir.matmul
// CV:         func.return %y, [[DX]], [[DK]],

// With seeded parameter tangents the fold of (dW·x) + (W·dx) stays.
// SEEDED-LABEL: func.func @lin_jvp
// SEEDED-NOT:   tlir.linear %dx
// SEEDED:       tlir_ad.fold ins(%w, %dw, %x, %dx)

func.func @lin(%x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %w = tlir.const {value = dense<1.5> : tensor<4x3xf64>} : tensor<4x3xf64>
  %b = tlir.const {value = dense<0.5> : tensor<4xf64>} : tensor<4xf64>
  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  func.return %y : tensor<2x4xf64>
}
func.func @mm(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>) -> tensor<2x3x5xf64> {
  %y = tlir.matmul %a, %b : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  func.return %y : tensor<2x3x5xf64>
}
func.func @cv(%x: tensor<2x3x4x4xf64>) -> tensor<2x5x4x4xf64> {
  %w = tlir.const {value = dense<0.25> : tensor<5x3x3x3xf64>} : tensor<5x3x3x3xf64>
  %b = tlir.const {value = dense<0.0> : tensor<5xf64>} : tensor<5xf64>
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 3 : i64, out_channels = 5 : i64} : (tensor<2x3x4x4xf64>, tensor<5x3x3x3xf64>, tensor<5xf64>) -> tensor<2x5x4x4xf64>
  func.return %y : tensor<2x5x4x4xf64>
}
