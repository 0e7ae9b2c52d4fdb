// tlir-bufferize: destination-passing style on buffers, results as
// out-parameters, arguments never written, temporaries freed. The input is
// linalg on tensors (as convert-tlir-to-linalg emits it), never tlir ops.
// RUN: tlir-opt %s --split-input-file -p tlir-bufferize | filecheck %s

// The result is computed straight into the out-parameter: no alloc, no copy.
// CHECK-LABEL: func.func @computed_into_out_param
// CHECK-SAME:    (%[[X:.*]]: memref<4xf64>, %[[OUT:.*]]: memref<4xf64>) {
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X]] : memref<4xf64>) outs(%[[OUT]] : memref<4xf64>)
// CHECK:         func.return
// CHECK-NOT:     memref.alloc
func.func @computed_into_out_param(%x: tensor<4xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %b: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// An argument used as an init is never written: the fill goes to a fresh
// buffer, which then becomes the out-parameter.
// CHECK-LABEL: func.func @argument_not_written
// CHECK-SAME:    (%[[X:.*]]: memref<4xf64>, %[[OUT:.*]]: memref<4xf64>) {
// CHECK:         linalg.fill ins(%{{.*}} : f64) outs(%[[OUT]] : memref<4xf64>)
// CHECK-NOT:     outs(%[[X]]
func.func @argument_not_written(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c = arith.constant 0.0 : f64
  %r = linalg.fill ins(%c : f64) outs(%x : tensor<4xf64>) -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// Constants become memref globals; returning a constant or an argument copies.
// CHECK:         "memref.global"() <{sym_name = "__constant_0", type = memref<2xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, sym_visibility = "private", constant, alignment = 64 : i64}>
// CHECK-LABEL: func.func @constant_and_argument_results
// CHECK-SAME:    (%[[X:.*]]: memref<2xf32>, %[[O0:.*]]: memref<2xf32>, %[[O1:.*]]: memref<2xf32>) {
// CHECK-NEXT:    %[[G:.*]] = memref.get_global @__constant_0 : memref<2xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[G]] : memref<2xf32>) outs(%[[O0]] : memref<2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<2xf32>) outs(%[[O1]] : memref<2xf32>)
func.func @constant_and_argument_results(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %c, %x : tensor<2xf32>, tensor<2xf32>
}

// -----

// Padding and concatenation write their parts in place through subviews; the
// insert_slice of a part computed in its own subview costs nothing; the padded
// temporary is freed.
// CHECK-LABEL: func.func @pad_in_place
// CHECK:         %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<7xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : f32) outs(%[[P]] : memref<7xf32>)
// CHECK-NEXT:    %[[V:.*]] = memref.subview %[[P]][1] [5] [1] : memref<7xf32> to memref<5xf32, strided<[1], offset: 1>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : memref<5xf32>) outs(%[[V]] : memref<5xf32, strided<[1], offset: 1>>)
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %{{.*}} : memref<7xf32>, memref<3xf32>)
// CHECK:         memref.dealloc %[[P]] : memref<7xf32>
// CHECK:         func.return
func.func @pad_in_place(%x: tensor<5xf32>) -> tensor<3xf32> {
  // avg_pool, kernel 3, stride 2, padding 1, as convert-tlir-to-linalg lowers it
  %shape = tensor.empty() : tensor<3xf32>
  %e7 = tensor.empty() : tensor<7xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %zeros = linalg.fill ins(%zero : f32) outs(%e7 : tensor<7xf32>) -> tensor<7xf32>
  %inner = tensor.extract_slice %zeros[1] [5] [1] : tensor<7xf32> to tensor<5xf32>
  %copied = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<5xf32>) outs(%inner : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<5xf32>
  %padded = tensor.insert_slice %copied into %zeros[1] [5] [1] : tensor<5xf32> into tensor<7xf32>
  %e3 = tensor.empty() : tensor<3xf32>
  %zero3 = arith.constant 0.000000e+00 : f32
  %init = linalg.fill ins(%zero3 : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * 2) + d1))>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%padded, %shape : tensor<7xf32>, tensor<3xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%v: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %e4 = tensor.empty() : tensor<3xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sums : tensor<3xf32>) outs(%e4 : tensor<3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %three = arith.constant 3.000000e+00 : f32
    %q = arith.divf %v, %three : f32
    linalg.yield %q : f32
  } -> tensor<3xf32>
  func.return %mean : tensor<3xf32>
}

// -----

// A call (a lowered tlir.custom) gets its result buffer as an extra argument;
// returned at once, that buffer is the caller's own out-parameter.
// CHECK-LABEL: func.func @call_with_out_param
// CHECK-SAME:    (%[[X:.*]]: memref<3xf64>, %[[OUT:.*]]: memref<3xf64>)
// CHECK-NEXT:    func.call @kernel(%[[X]], %[[OUT]]) : (memref<3xf64>, memref<3xf64>) -> ()
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @kernel
// CHECK-SAME:    (%{{.*}}: memref<3xf64>, %{{.*}}: memref<3xf64>)
func.func @call_with_out_param(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = func.call @kernel(%x) : (tensor<3xf64>) -> tensor<3xf64>
  func.return %0 : tensor<3xf64>
}
func.func @kernel(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %b: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<3xf64>
  func.return %r : tensor<3xf64>
}

// -----

// A kernel allocates nothing: its temporary becomes a scratch argument after
// the out-parameter, then come `lo` and `hi`. Its caller allocates the result
// and the scratch buffer, asks for the whole range, and frees the scratch
// right after the call.
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[X:.*]]: memref<4xf64>, %[[OUT:.*]]: memref<4xf64>)
// CHECK-NEXT:    %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf64>
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 9223372036854775807 : index
// CHECK-NEXT:    func.call @twice(%[[X]], %[[OUT]], %[[S]], %[[LO]], %[[HI]]) : (memref<4xf64>, memref<4xf64>, memref<4xf64>, index, index) -> ()
// CHECK-NEXT:    memref.dealloc %[[S]] : memref<4xf64>
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @twice
// CHECK-SAME:    (%[[A:.*]]: memref<4xf64>, %[[O:.*]]: memref<4xf64>, %[[T:.*]]: memref<4xf64>, %lo: index, %hi: index)
// CHECK-SAME:    attributes {tlir.kernel, tlir.num_inputs = 1 : i64, tlir.num_outputs = 1 : i64}
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : memref<4xf64>) outs(%[[T]] : memref<4xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %[[T]] : memref<4xf64>, memref<4xf64>) outs(%[[O]] : memref<4xf64>)
// CHECK-NOT:     memref.dealloc
func.func @caller(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = func.call @twice(%x) : (tensor<4xf64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}
func.func private @twice(%x: tensor<4xf64>) -> tensor<4xf64> attributes {tlir.kernel} {
  %e = tensor.empty() : tensor<4xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %b: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<4xf64>
  %e2 = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t, %t : tensor<4xf64>, tensor<4xf64>) outs(%e2 : tensor<4xf64>) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %m = arith.mulf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// A value returned twice is computed into the first out-parameter and copied
// from there into the second (never from the allocation it replaced).
// CHECK-LABEL: func.func @returned_twice
// CHECK-SAME:    (%[[X:.*]]: memref<2xf64>, %[[O0:.*]]: memref<2xf64>, %[[O1:.*]]: memref<2xf64>) {
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X]] : memref<2xf64>) outs(%[[O0]] : memref<2xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[O0]] : memref<2xf64>) outs(%[[O1]] : memref<2xf64>)
// CHECK:         func.return
// CHECK-NOT:     memref.alloc
func.func @returned_twice(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %e = tensor.empty() : tensor<2xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf64>) outs(%e : tensor<2xf64>) {
  ^bb0(%a: f64, %b: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<2xf64>
  func.return %r, %r : tensor<2xf64>, tensor<2xf64>
}
