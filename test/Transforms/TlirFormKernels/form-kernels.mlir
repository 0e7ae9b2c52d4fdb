// tlir-form-kernels: the tlir ops of a function become calls of kernel
// functions (`tlir.kernel`). Constants and views (detach, reshape, flatten)
// stay in the caller. With fusion (the default), an elementwise op joins the
// kernel of its users when they are all in one kernel; a contraction or a
// reduction joins an elementwise kernel that consumes it (one such anchor per
// kernel); a contraction's own operands are never fused into it.
// RUN: tlir-opt %s --split-input-file -p tlir-form-kernels | filecheck %s
// RUN: tlir-opt %s --split-input-file -p 'tlir-form-kernels{fuse=false}' | filecheck %s --check-prefix=NOFUSE

// An elementwise chain is one kernel; the constant and the view stay.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>)
// CHECK-NEXT:    %[[C:.*]] = tlir.const
// CHECK-NEXT:    %[[K:.*]] = func.call @chain_k0(%[[X]], %[[C]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    %[[V:.*]] = tlir.reshape %[[K]] : (tensor<4xf64>) -> tensor<2x2xf64>
// CHECK-NEXT:    func.return %[[V]]
// CHECK-LABEL: func.func private @chain_k0
// CHECK-SAME:    attributes {tlir.kernel}
// CHECK-NEXT:    tlir.mul_elem
// CHECK-NEXT:    tlir.relu
// CHECK-NEXT:    tlir.exp
// CHECK-NEXT:    func.return
// NOFUSE-LABEL: func.func @chain
// NOFUSE-NEXT:   tlir.const
// NOFUSE-NEXT:   func.call @chain_k0
// NOFUSE-NEXT:   func.call @chain_k1
// NOFUSE-NEXT:   func.call @chain_k2
// NOFUSE-NEXT:   tlir.reshape
func.func @chain(%x: tensor<4xf64>) -> tensor<2x2xf64> {
  %c = tlir.const {value = dense<2.0> : tensor<4xf64>} : tensor<4xf64>
  %0 = tlir.mul_elem %x, %c : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = tlir.relu %0 : (tensor<4xf64>) -> tensor<4xf64>
  %2 = tlir.exp %1 : (tensor<4xf64>) -> tensor<4xf64>
  %3 = tlir.reshape %2 : (tensor<4xf64>) -> tensor<2x2xf64>
  func.return %3 : tensor<2x2xf64>
}

// -----

// A linear layer takes its same-shaped epilogue (activation, residual add);
// its input, computed by an elementwise op, is a kernel of its own.
// CHECK-LABEL: func.func @epilogue
// CHECK:         %[[A:.*]] = func.call @epilogue_k0(%{{.*}}) : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    %[[B:.*]] = func.call @epilogue_k1(%[[A]], %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
// CHECK-LABEL: func.func private @epilogue_k0
// CHECK-NEXT:    tlir.abs
// CHECK-LABEL: func.func private @epilogue_k1
// CHECK-NEXT:    tlir.linear
// CHECK-NEXT:    tlir.relu
// CHECK-NEXT:    tlir.add
// CHECK-NEXT:    func.return
func.func @epilogue(%x: tensor<2x3xf64>, %r: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %w = tlir.const {value = dense<0.5> : tensor<4x3xf64>} : tensor<4x3xf64>
  %b = tlir.const {value = dense<0.25> : tensor<4xf64>} : tensor<4xf64>
  %0 = tlir.abs %x : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %1 = tlir.linear %0, %w, %b : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  %2 = tlir.relu %1 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %3 = tlir.add %2, %r : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  func.return %3 : tensor<2x4xf64>
}

// -----

// Producers join the reduction that consumes them; a value read by two
// kernels is computed once, in a kernel of its own.
// CHECK-LABEL: func.func @producers
// CHECK-NEXT:    %[[S:.*]] = func.call @producers_k0(%{{.*}}) : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    %[[M:.*]] = func.call @producers_k1(%[[S]]) : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT:    %[[N:.*]] = func.call @producers_k2(%[[S]]) : (tensor<2x3xf64>) -> tensor<2xf64>
// CHECK-LABEL: func.func private @producers_k0
// CHECK-NEXT:    tlir.sin
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @producers_k1
// CHECK-NEXT:    tlir.abs
// CHECK-NEXT:    tlir.softmax
// CHECK-LABEL: func.func private @producers_k2
// CHECK-NEXT:    tlir.reduce_sum
func.func @producers(%x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2xf64>) {
  %0 = tlir.sin %x : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %1 = tlir.abs %0 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %2 = tlir.softmax %1 axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %3 = tlir.reduce_sum %0 axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64>
  func.return %2, %3 : tensor<2x3xf64>, tensor<2xf64>
}

// -----

// An elementwise op is not fused into a broadcast that expands it (it would
// be recomputed for every copy); a reduction takes its elementwise epilogue.
// CHECK-LABEL: func.func @no_recompute
// CHECK-NEXT:    %[[E:.*]] = func.call @no_recompute_k0(%{{.*}}) : (tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    func.call @no_recompute_k1(%[[E]]) : (tensor<3xf64>) -> tensor<4xf64>
// CHECK-LABEL: func.func private @no_recompute_k0
// CHECK-NEXT:    tlir.exp
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @no_recompute_k1
// CHECK-NEXT:    tlir.broadcast_to
// CHECK-NEXT:    tlir.reduce_sum
// CHECK-NEXT:    tlir.tanh
func.func @no_recompute(%x: tensor<3xf64>) -> tensor<4xf64> {
  %0 = tlir.exp %x : (tensor<3xf64>) -> tensor<3xf64>
  %1 = tlir.broadcast_to %0 : (tensor<3xf64>) -> tensor<4x3xf64>
  %2 = tlir.reduce_sum %1 axis = 1 : (tensor<4x3xf64>) -> tensor<4xf64>
  %3 = tlir.tanh %2 : (tensor<4xf64>) -> tensor<4xf64>
  func.return %3 : tensor<4xf64>
}

// -----

// A producer joins a reduction only when its result leads with the
// reduction's extent: the kernel is split across threads along that dimension
// (tlir-linalg-to-loops), so a transpose leading with 4 gets a kernel of its
// own before a sum leading with 3, while one leading with 4 before a sum
// leading with 4 fuses.
// CHECK-LABEL: func.func @splittable
// CHECK-NEXT:    %[[T:.*]] = func.call @splittable_k0(%{{.*}}) : (tensor<3x4xf64>) -> tensor<4x3xf64>
// CHECK-NEXT:    %[[S:.*]] = func.call @splittable_k1(%[[T]]) : (tensor<4x3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    %[[U:.*]] = func.call @splittable_k2(%{{.*}}) : (tensor<3x4xf64>) -> tensor<4xf64>
// CHECK-LABEL: func.func private @splittable_k0
// CHECK-NEXT:    tlir.transpose
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @splittable_k1
// CHECK-NEXT:    tlir.reduce_sum
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @splittable_k2
// CHECK-NEXT:    tlir.transpose
// CHECK-NEXT:    tlir.reduce_sum
// CHECK-NEXT:    func.return
func.func @splittable(%x: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<4xf64>) {
  %0 = tlir.transpose %x {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x4xf64>) -> tensor<4x3xf64>
  %1 = tlir.reduce_sum %0 axis = 0 : (tensor<4x3xf64>) -> tensor<3xf64>
  %2 = tlir.transpose %x {axis1 = 0 : i64, axis2 = 1 : i64} : (tensor<3x4xf64>) -> tensor<4x3xf64>
  %3 = tlir.reduce_sum %2 axis = 1 : (tensor<4x3xf64>) -> tensor<4xf64>
  func.return %1, %3 : tensor<3xf64>, tensor<4xf64>
}
