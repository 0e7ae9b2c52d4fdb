// tlir-fuse-elementwise: an all-parallel producer generic whose result is
// written through a permutation map is fused into the generics that read it:
// they read the producer's inputs through the composed maps and compute its
// scalar body in place of their block argument (same ops, same order, same
// bits). A producer read twice is recomputed only if it calls no C library
// function; a fusion that would leave a loop without a bound is not done. A
// transpose is not fused into a reduction (it would read its source across
// rows); a broadcast, which keeps the order of its indices, is.
// RUN: tlir-opt %s --split-input-file -p tlir-fuse-elementwise | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d1)>

// A broadcast (gather) and a transpose fold into the consumer's maps.
// CHECK-LABEL: func.func @gathers
// CHECK-SAME:    (%[[V:.*]]: tensor<3xf64>, %[[M:.*]]: tensor<3x2xf64>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3xf64>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[V]], %[[M]] : tensor<3xf64>, tensor<3x2xf64>) outs(%[[E]] : tensor<2x3xf64>)
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f64, %[[B:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[A]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[N]], %[[B]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         func.return %[[R]]
func.func @gathers(%v: tensor<3xf64>, %m: tensor<3x2xf64>) -> tensor<2x3xf64> {
  %e0 = tensor.empty() : tensor<2x3xf64>
  %b = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<3xf64>) outs(%e0 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<2x3xf64>
  %e1 = tensor.empty() : tensor<2x3xf64>
  %t = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<3x2xf64>) outs(%e1 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<2x3xf64>
  %e2 = tensor.empty() : tensor<2x3xf64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %t : tensor<2x3xf64>, tensor<2x3xf64>) outs(%e2 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %c: f64, %o: f64):
    %s = arith.addf %a, %c : f64
    linalg.yield %s : f64
  } -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// An exp read by two generics stays (recomputing it would call exp twice);
// a cheap negation read by two generics is recomputed in both.
// CHECK-LABEL: func.func @shared
// CHECK:         math.exp
// CHECK-NOT:     math.exp
// CHECK:         arith.negf
// CHECK-NEXT:    arith.mulf
// CHECK:         arith.negf
// CHECK-NEXT:    arith.addf
func.func @shared(%x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
  %e0 = tensor.empty() : tensor<2x3xf64>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf64>) outs(%e0 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = math.exp %a : f64
    linalg.yield %y : f64
  } -> tensor<2x3xf64>
  %e1 = tensor.empty() : tensor<2x3xf64>
  %ng = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ex : tensor<2x3xf64>) outs(%e1 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = arith.negf %a : f64
    linalg.yield %y : f64
  } -> tensor<2x3xf64>
  %e2 = tensor.empty() : tensor<2x3xf64>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%ng, %ex : tensor<2x3xf64>, tensor<2x3xf64>) outs(%e2 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %y = arith.mulf %a, %b : f64
    linalg.yield %y : f64
  } -> tensor<2x3xf64>
  %e3 = tensor.empty() : tensor<2x3xf64>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%ng, %ex : tensor<2x3xf64>, tensor<2x3xf64>) outs(%e3 : tensor<2x3xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %y = arith.addf %a, %b : f64
    linalg.yield %y : f64
  } -> tensor<2x3xf64>
  func.return %p, %q : tensor<2x3xf64>, tensor<2x3xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

// Summing a broadcast over the broadcast axis: fusing would leave d0 without
// a bound, so the broadcast stays a generic of its own.
// CHECK-LABEL: func.func @keeps_bounds
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
func.func @keeps_bounds(%v: tensor<3xf64>, %acc: tensor<3xf64>) -> tensor<3xf64> {
  %e0 = tensor.empty() : tensor<4x3xf64>
  %b = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<3xf64>) outs(%e0 : tensor<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<4x3xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]} ins(%b : tensor<4x3xf64>) outs(%acc : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = arith.addf %o, %a : f64
    linalg.yield %y : f64
  } -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A transpose read by a reduction stays a copy of its own: fused, it would
// read its source column by column in the reduction's order.
// CHECK-LABEL: func.func @gather_into_reduction
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
func.func @gather_into_reduction(%w: tensor<3x4xf64>, %acc: tensor<3xf64>) -> tensor<3xf64> {
  %e0 = tensor.empty() : tensor<4x3xf64>
  %t = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<3x4xf64>) outs(%e0 : tensor<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<4x3xf64>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%t : tensor<4x3xf64>) outs(%acc : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = arith.addf %o, %a : f64
    linalg.yield %y : f64
  } -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// Each row minus its mean, summed along the row (layernorm's second fold): the
// broadcast of the means keeps its order, so it fuses into the reduction and
// the centred matrix is never stored.
// CHECK-LABEL: func.func @broadcast_into_reduction
// CHECK-SAME:    (%[[X:.*]]: tensor<3x4xf64>, %[[M:.*]]: tensor<3xf64>, %[[ACC:.*]]: tensor<3xf64>)
// CHECK-NEXT:    %[[S:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[M]] : tensor<3x4xf64>, tensor<3xf64>) outs(%[[ACC]] : tensor<3xf64>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %[[MEAN:.*]]: f64, %[[O:.*]]: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[MEAN]] : f64
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[O]], %[[D]] : f64
// CHECK-NEXT:      linalg.yield %[[Y]] : f64
// CHECK-NEXT:    } -> tensor<3xf64>
// CHECK-NEXT:    func.return %[[S]] : tensor<3xf64>
func.func @broadcast_into_reduction(%x: tensor<3x4xf64>, %m: tensor<3xf64>, %acc: tensor<3xf64>) -> tensor<3xf64> {
  %e0 = tensor.empty() : tensor<3x4xf64>
  %c = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<3x4xf64>, tensor<3xf64>) outs(%e0 : tensor<3x4xf64>) {
  ^bb0(%a: f64, %mean: f64, %o: f64):
    %d = arith.subf %a, %mean : f64
    linalg.yield %d : f64
  } -> tensor<3x4xf64>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<3x4xf64>) outs(%acc : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = arith.addf %o, %a : f64
    linalg.yield %y : f64
  } -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}
