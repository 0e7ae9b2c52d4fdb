// A map on a gather's reshaped result becomes part of the gather (passes/autodiff/fusion.py):
// relu's mask on max_pool's tiled-window cotangent is one tlir_ad.fold that reads the relu
// input through the reshape's index ((d2 * 2) + d3, (d4 * 2) + d5) and yields the mask times the
// gather body's value; no tlir_ad.map is left. A map whose gather result has another use stays.
// RUN: tlir-opt %s -p 'tlir-vjp{function=rp}' | filecheck %s --check-prefix=RP
// RUN: tlir-opt %s -p 'tlir-vjp{function=kept}' | filecheck %s --check-prefix=KEPT

// RP-LABEL: func.func @rp_vjp
// The winner fold's first result is the pool's value: no tlir.max_pool in the forward copy.
// RP-NOT:     tlir.max_pool
// RP:         [[P:%.+]], {{%.+}}, {{%.+}} = tlir_ad.fold ins(%r, %{{.+}})
// RP:         [[G:%.+]] = tlir_ad.fold ins(%dy0, %{{.+}}, %{{.+}}, %x) init(%{{.+}}) {bounds = array<i64: 1, 2, 2, 2, 2, 2>, maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d3), ((d4 * 2) + d5))>], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// RP-NEXT:    ^bb0(%[[DY:.+]]: f64, %[[WIN:.+]]: f64, %[[CELL:.+]]: f64, %[[X:.+]]: f64, %[[ACC:.+]]: f64):
// RP-NEXT:      %[[HIT:.+]] = arith.cmpf oeq, %[[WIN]], %[[CELL]] : f64
// RP-NEXT:      %[[SUM:.+]] = arith.addf %[[ACC]], %[[DY]] : f64
// RP-NEXT:      %[[GATHERED:.+]] = arith.select %[[HIT]], %[[SUM]], %[[ACC]] : f64
// RP:           %[[POS:.+]] = arith.cmpf ogt, %[[X]], %{{.+}} : f64
// RP:           %[[MASK:.+]] = arith.select %[[POS]], %{{.+}}, %{{.+}} : f64
// RP-NEXT:      %[[OUT:.+]] = arith.mulf %[[MASK]], %[[GATHERED]] : f64
// RP-NEXT:      tlir_ad.yield %[[OUT]] : f64
// RP:         [[DX:%.+]] = tlir.reshape [[G]] : (tensor<1x2x2x2x2x2xf64>) -> tensor<1x2x4x4xf64>
// RP-NOT:     tlir_ad.map
// RP:         func.return [[P]], [[DX]]

// KEPT-LABEL: func.func @kept_vjp
// KEPT:         tlir_ad.map
func.func @rp(%x: tensor<1x2x4x4xf64>) -> tensor<1x2x2x2xf64> {
  %r = tlir.relu %x : (tensor<1x2x4x4xf64>) -> tensor<1x2x4x4xf64>
  %p = tlir.max_pool %r {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf64>) -> tensor<1x2x2x2xf64>
  func.return %p : tensor<1x2x2x2xf64>
}

// The pool's input is also returned: its cotangent is the returned one plus the gather's (a
// tlir.add, not a map), so relu's map reads the sum and stays a map of its own.
func.func @kept(%x: tensor<1x2x4x4xf64>) -> (tensor<1x2x2x2xf64>, tensor<1x2x4x4xf64>) {
  %r = tlir.relu %x : (tensor<1x2x4x4xf64>) -> tensor<1x2x4x4xf64>
  %p = tlir.max_pool %r {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf64>) -> tensor<1x2x2x2xf64>
  func.return %p, %r : tensor<1x2x2x2xf64>, tensor<1x2x4x4xf64>
}
