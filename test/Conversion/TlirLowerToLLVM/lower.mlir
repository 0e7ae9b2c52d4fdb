// tlir-to-llvm, the whole xDSL route: buffers as bare pointers, one kernel
// function per linalg op, loops as branches, loads and stores through one
// getelementptr with the row-major index, malloc/free for temporaries, the C
// math library for exp, intrinsics for sqrt, constants as LLVM globals.
// RUN: tlir-opt %s --split-input-file -p tlir-to-llvm | filecheck %s
// RUN: tlir-opt %s --split-input-file -p tlir-to-llvm | filecheck %s --check-prefix=NOFAST
// RUN: tlir-translate --mlir-to-llvmir %s | filecheck %s --check-prefix=IR

// NOFAST-NOT: fastmath
// NOFAST-NOT: contract

// CHECK-DAG:     llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG:     llvm.func @free(!llvm.ptr)
// CHECK-DAG:     llvm.func @expf(f32) -> f32
// CHECK-DAG:     llvm.mlir.global internal constant @__constant_0(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<6 x f32>
// CHECK-LABEL: llvm.func @main
// CHECK-SAME:    (%[[X:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr) {
// CHECK-NEXT:    %[[G:.*]] = llvm.mlir.addressof @__constant_0 : !llvm.ptr
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(16) : i64
// CHECK-NEXT:    %[[T:.*]] = llvm.call @malloc(%[[SIZE]]) : (i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.call @main__kernel0(%[[T]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call @main__kernel1(%[[X]], %[[G]], %[[T]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call @main__kernel2(%[[T]], %[[OUT]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call @free(%[[T]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func internal @main__kernel1
// CHECK-SAME:    (%[[A:.*]]: !llvm.ptr, %[[B:.*]]: !llvm.ptr, %[[C:.*]]: !llvm.ptr)
// CHECK:         llvm.getelementptr %[[A]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[AV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[BV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[ACC:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[P:.*]] = llvm.fmul %[[AV]], %[[BV]] : f32
// CHECK-NEXT:    %[[S:.*]] = llvm.fadd %[[ACC]], %[[P]] : f32
// CHECK:         llvm.store %[[S]], %{{.*}} : f32, !llvm.ptr
// CHECK-LABEL: llvm.func internal @main__kernel2
// CHECK:         llvm.call @expf(%{{.*}}) : (f32) -> f32
// IR: @"__constant_0" = internal constant [6 x float] [float 0x3ff0000000000000, float 0x4000000000000000
// IR: declare float @"expf"(float
// IR: define void @"main"(ptr %".1", ptr %".2")
// IR: call ccc void @"main__kernel1"
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %c = tlir.const {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : tensor<3x2xf32>
  %m = tlir.matmul %x, %c : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %e = tlir.exp %m : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %e : tensor<2x2xf32>
}

// -----

// A strided view (the interior of a padded buffer) keeps its offset and strides
// in the type: the store index is 7·i + j + 8 into the base pointer.
// CHECK-LABEL: llvm.func @padded
// CHECK-LABEL: llvm.func internal @padded__kernel1
// CHECK:         %[[OFF:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %[[S7:.*]] = llvm.mlir.constant(7) : i64
// CHECK-NEXT:    %[[ROW:.*]] = llvm.mul %{{.*}}, %[[S7]] : i64
// CHECK-NEXT:    %[[I1:.*]] = llvm.add %[[OFF]], %[[ROW]] : i64
// CHECK-NEXT:    %[[I2:.*]] = llvm.add %[[I1]], %{{.*}} : i64
// CHECK-NEXT:    %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[I2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:    llvm.store %{{.*}}, %[[PTR]] : f64, !llvm.ptr
// CHECK:         llvm.call @llvm.sqrt.f64
func.func @padded(%x: tensor<5x5xf64>) -> tensor<3x3xf64> {
  %0 = tlir.max_pool %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<5x5xf64>) -> tensor<3x3xf64>
  %1 = tlir.sqrt %0 : (tensor<3x3xf64>) -> tensor<3x3xf64>
  func.return %1 : tensor<3x3xf64>
}
