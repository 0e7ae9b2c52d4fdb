// A module whose batch is `?` is lowered at a batch: the lowering passes, the
// whole route and the derivative passes refuse `?` with one line naming the
// pass; after tlir-specialize-batch they see the static module.
// RUN: not tlir-opt %s -p convert-tlir-to-linalg 2>&1 | filecheck %s --check-prefix=LINALG
// RUN: not tlir-opt %s -p tlir-to-llvm 2>&1 | filecheck %s --check-prefix=ROUTE
// RUN: not tlir-opt %s -p 'tlir-vjp{wrt=params}' 2>&1 | filecheck %s --check-prefix=VJP
// RUN: not tlir-opt %s -p tlir-jvp 2>&1 | filecheck %s --check-prefix=JVP
// RUN: not tlir-opt %s -p tlir-ibp 2>&1 | filecheck %s --check-prefix=IBP
// RUN: not tlir-opt %s -p tlir-contraction-kernels 2>&1 | filecheck %s --check-prefix=KERNELS
// RUN: not tlir-translate --export-torchlean %s 2>&1 | filecheck %s --check-prefix=EXPORT
// RUN: tlir-opt %s -p 'tlir-specialize-batch{batch=3}' | tlir-translate --export-torchlean | filecheck %s --check-prefix=JSON
// RUN: tlir-translate --export-torchlean %s -o %t.tlz && tlir-translate --import-torchlean %t.tlz | filecheck %s --check-prefix=TLZ
// RUN: tlir-opt %s -p 'tlir-specialize-batch{batch=3},convert-tlir-to-linalg' | filecheck %s
// RUN: tlir-opt %s -p 'tlir-specialize-batch{batch=3},tlir-vjp{wrt=params}' | filecheck %s --check-prefix=GRAD
// RUN: tlir-opt %s -p 'tlir-specialize-batch{batch=3},tlir-to-llvm' | filecheck %s --check-prefix=LLVM

// LINALG: lowering.mlir:[[# @LINE + 10]]:1: error: convert-tlir-to-linalg: @main's batch is '?': specialize the module to a batch first (tlir-specialize-batch{batch=N})
// ROUTE: error: tlir-to-llvm: @main's batch is '?'
// VJP: error: tlir-vjp: @main's batch is '?'
// JVP: error: tlir-jvp: @main's batch is '?'
// IBP: error: tlir-ibp: @main's batch is '?'
// KERNELS: error: tlir-contraction-kernels: @main's batch is '?'
// EXPORT: error: the module's batch is '?' and a TorchLean graph has fixed extents: export it at a batch {{.*}}, or as a .tlz, which keeps the '?'
// TLZ: func.func @main(%input: tensor<?x4xf32> {{.*}}) -> tensor<?x2xf32>
// TLZ: tlir.linear {{.*}} -> tensor<?x2xf32>
// JSON: {"id": 0, "kind": "input", "parents": [], "shape": [3, 4]}
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %w = tlir.const {value = dense<0.5> : tensor<2x4xf32>} : tensor<2x4xf32>
  %b = tlir.const {value = dense<0.25> : tensor<2xf32>} : tensor<2xf32>
  %y = tlir.linear %x, %w, %b : (tensor<?x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %r = tlir.relu %y : (tensor<?x2xf32>) -> tensor<?x2xf32>
  func.return %r : tensor<?x2xf32>
}
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<3x4xf32>) -> tensor<3x2xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<3x2xf32>)
// GRAD-LABEL: func.func @main_vjp
// GRAD-SAME: (%{{.*}}: tensor<3x4xf32>, %{{.*}}: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x4xf32>, tensor<2xf32>)
// LLVM: llvm.func
