// tlir-linalg-to-loops with tlir.row_strips = [dim, outer, widths...] on a generic:
// the parallel dimension `dim` runs in whole strips of each width (from where the
// last ones end), then one by one; the loop over the strips stands before
// dimension `outer`, the loop over a strip's rows (of the constant width) at
// dim's place, each row the strip's start plus its offset. A strip of more than
// one row sums in a local tile of constant shape (a stack buffer in the entry
// block): the outputs copied in before the column loop, read and written there
// at the row's offset, copied back after. Here 11 rows: two strips of 4 around
// the column loop, then rows 8, 9, 10 alone (on the output itself).
// RUN: tlir-opt %s -p 'tlir-linalg-to-loops{vector_bytes=0}' | filecheck %s

// CHECK-LABEL: func.func @strips
// CHECK-SAME:    (%[[X:.*]]: memref<3x11xf64>, %[[Y:.*]]: memref<2x11xf64>)
// CHECK-NEXT:    %[[TILE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf64>
// CHECK:         scf.for %[[O:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[N:.*]] = arith.constant 11 : index
// CHECK-NEXT:      %[[W:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[SPAN:.*]] = arith.subi %[[N]], %[[ZERO:.*]] : index
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[SPAN]], %[[W]] : index
// CHECK-NEXT:      %[[WHOLE:.*]] = arith.muli %[[Q]], %[[W]] : index
// CHECK-NEXT:      %[[SPLIT:.*]] = arith.addi %[[ZERO]], %[[WHOLE]] : index
// CHECK-NEXT:      scf.for %[[S:.*]] = %[[ZERO]] to %[[SPLIT]] step %[[W]] {
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[IN:.*]] = arith.addi %[[S]], %[[I]] : index
// CHECK-NEXT:          %[[START:.*]] = memref.load %[[Y]][%[[O]], %[[IN]]] : memref<2x11xf64>
// CHECK-NEXT:          memref.store %[[START]], %[[TILE]][%[[I]]] : memref<4xf64>
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:          scf.for %[[R:.*]] = %{{.*}} to %[[FOUR]] step %{{.*}} {
// CHECK-NEXT:            %[[ROW:.*]] = arith.addi %[[S]], %[[R]] : index
// CHECK-NEXT:            memref.load %[[X]][%[[K]], %[[ROW]]] : memref<3x11xf64>
// CHECK-NEXT:            memref.load %[[TILE]][%[[R]]] : memref<4xf64>
// CHECK:                 memref.store %{{.*}}, %[[TILE]][%[[R]]] : memref<4xf64>
// CHECK:             scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[OUT:.*]] = arith.addi %[[S]], %[[J]] : index
// CHECK-NEXT:          %[[SUM:.*]] = memref.load %[[TILE]][%[[J]]] : memref<4xf64>
// CHECK-NEXT:          memref.store %[[SUM]], %[[Y]][%[[O]], %[[OUT]]] : memref<2x11xf64>
// CHECK:           scf.for %[[T:.*]] = %[[SPLIT]] to %[[N]] step %{{.*}} {
// CHECK:             scf.for %[[K2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          memref.load %[[X]][%[[K2]], %[[T]]] : memref<3x11xf64>
// CHECK-NEXT:          memref.load %[[Y]][%[[O]], %[[T]]] : memref<2x11xf64>
// CHECK:               memref.store %{{.*}}, %[[Y]][%[[O]], %[[T]]] : memref<2x11xf64>
func.func @strips(%x: memref<3x11xf64>, %y: memref<2x11xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<3x11xf64>) outs(%y : memref<2x11xf64>) attrs = {tlir.row_strips = array<i64: 2, 1, 4>} {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}
