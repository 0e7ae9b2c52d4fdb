// tlir-outline-kernels: each linalg op on buffers becomes a call of its own
// private function; captured constants are cloned into it.
// RUN: tlir-opt %s -p tlir-outline-kernels | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: memref<4xf64>, %[[T:.*]]: memref<4xf64>, %[[OUT:.*]]: memref<4xf64>)
// CHECK-NEXT:    func.call @main__kernel0(%[[T]]) : (memref<4xf64>) -> ()
// CHECK-NEXT:    func.call @main__kernel1(%[[X]], %[[T]], %[[OUT]]) : (memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @main__kernel0
// CHECK-SAME:    (%[[B:.*]]: memref<4xf64>)
// CHECK-NEXT:    %[[C:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    linalg.fill ins(%[[C]] : f64) outs(%[[B]] : memref<4xf64>)
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @main__kernel1
// CHECK-SAME:    (%[[A:.*]]: memref<4xf64>, %[[B2:.*]]: memref<4xf64>, %[[O:.*]]: memref<4xf64>)
// CHECK-NEXT:    %[[K:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A]], %[[B2]] : memref<4xf64>, memref<4xf64>) outs(%[[O]] : memref<4xf64>)
// CHECK:           arith.mulf %{{.*}}, %[[K]] : f64
func.func @main(%x: memref<4xf64>, %t: memref<4xf64>, %out: memref<4xf64>) {
  %c = arith.constant 0.0 : f64
  %k = arith.constant 2.0 : f64
  linalg.fill ins(%c : f64) outs(%t : memref<4xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %t : memref<4xf64>, memref<4xf64>) outs(%out : memref<4xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %s = arith.addf %a, %b : f64
    %m = arith.mulf %s, %k : f64
    linalg.yield %m : f64
  }
  func.return
}
