// The whole xDSL route (`tlir-to-llvm`): kernels formed and deduplicated
// (the matmul takes its exp epilogue), lowered to loops over [lo, hi) on bare
// pointers, one getelementptr per access, malloc checked in the caller, the C
// math library for exp, constants as LLVM globals; and LLVM IR text through
// `tlir-translate --mlir-to-llvmir`.
// RUN: tlir-opt %s -p tlir-to-llvm | filecheck %s
// RUN: tlir-opt %s -p tlir-to-llvm | filecheck %s --check-prefix=NOFAST
// RUN: tlir-translate --mlir-to-llvmir %s | filecheck %s --check-prefix=IR

// NOFAST-NOT: fastmath
// NOFAST-NOT: contract

// CHECK-DAG:     llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG:     llvm.func @expf(f32) -> f32
// CHECK-DAG:     llvm.mlir.global internal constant @__constant_0(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<6 x f32>
// CHECK-LABEL: llvm.func @main
// CHECK-SAME:    (%[[X:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr) -> i32 {
// CHECK-COUNT-4: llvm.mlir.constant
// CHECK-NEXT:    %[[G:.*]] = llvm.mlir.addressof @__constant_0 : !llvm.ptr
// CHECK:         %[[T:.*]] = llvm.call @malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.call @k_{{[0-9a-f]+}}(%[[X]], %[[G]], %[[OUT]], %[[T]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NEXT:    llvm.call @free(%[[T]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: llvm.func @k_
// CHECK-SAME:    (%[[A:.*]]: !llvm.ptr {llvm.noalias}, %[[B:.*]]: !llvm.ptr {llvm.noalias}, %[[O:.*]]: !llvm.ptr {llvm.noalias}, %[[S:.*]]: !llvm.ptr {llvm.noalias}, %[[LO:.*]]: i64, %[[HI:.*]]: i64) attributes {no_inline}
// The matmul folds into the scratch buffer, k outside j, one fmul then one fadd:
// CHECK:         %[[AV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[BV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[ACC:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[P:.*]] = llvm.fmul %[[AV]], %[[BV]] : f32
// CHECK-NEXT:    %[[SUM:.*]] = llvm.fadd %[[ACC]], %[[P]] : f32
// then the epilogue reads it and calls expf:
// CHECK:         llvm.call @expf(%{{.*}}) : (f32) -> f32
// IR: @"__constant_0" = internal constant [6 x float] [float 0x3ff0000000000000, float 0x4000000000000000
// IR: declare float @"expf"(float
// IR: define i32 @"main"(ptr %".1", ptr %".2")
// IR: define void @"k_{{[0-9a-f]+}}"(ptr noalias %".1", ptr noalias %".2", ptr noalias %".3", ptr noalias %".4", i64 %".5", i64 %".6") noinline
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %c = tlir.const {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : tensor<3x2xf32>
  %m = tlir.matmul %x, %c : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %e = tlir.exp %m : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %e : tensor<2x2xf32>
}
