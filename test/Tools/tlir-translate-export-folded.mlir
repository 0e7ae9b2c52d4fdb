// A payload computed from constants only is evaluated at export and written as the payload
// (mul_elem by a 0/1 mask as a grouped conv's weight is made; -2·0 = -0): the ops and constants
// that only fed it are no nodes. A constant sub-graph also read elsewhere stays; so does an
// op dead before export. A payload that depends on the input or on a random op is one line.
// RUN: tlir-translate --export-torchlean %s | filecheck %s
// RUN: not tlir-translate --export-torchlean %S/Inputs/input_payload.mlir 2>&1 | filecheck %s --check-prefix=INPUT
// RUN: not tlir-translate --export-torchlean %S/Inputs/random_payload.mlir 2>&1 | filecheck %s --check-prefix=RANDOM

// CHECK:      "nodes": [
// CHECK-NEXT:   {"id": 0, "kind": "input", "parents": [], "shape": [3, 2]},
// CHECK-NEXT:   {"id": 1, "kind": "const", "parents": [], "shape": [2], "value_shape": [2], "values": [0.5, 0.25]},
// CHECK-NEXT:   {"id": 2, "kind": "add", "parents": [1, 1], "shape": [2]},
// CHECK-NEXT:   {"id": 3, "kind": "sqrt", "parents": [2], "shape": [2]},
// CHECK-NEXT:   {"id": 4, "kind": "linear", "parents": [0], "shape": [3, 2], "out_dim": 2, "in_dim": 2, "weight": {{\[\[}}1.5, -0.0], [0.0, 4.25]], "bias": [1.0, 0.5]},
// CHECK-NEXT:   {"id": 5, "kind": "linear", "parents": [4], "shape": [3, 2], "out_dim": 2, "in_dim": 2, "weight": {{\[\[}}1.5, -0.0], [0.0, 4.25]], "bias": [1.0, 0.5]},
// CHECK-NEXT:   {"id": 6, "kind": "broadcast_to", "parents": [2], "shape": [3, 2], "from_shape": [2], "to_shape": [3, 2]},
// CHECK-NEXT:   {"id": 7, "kind": "add", "parents": [5, 6], "shape": [3, 2]}
// CHECK-NEXT: ]

// INPUT: input_payload.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tlir.linear: operand 'weight' is written as payload, so it must be computed from constants only, not from the input or a random op
// INPUT-NOT: Traceback
// RANDOM: random_payload.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tlir.linear: operand 'weight' is written as payload, so it must be computed from constants only, not from the input or a random op
// RANDOM-NOT: Traceback

func.func @main(%x: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %w = tlir.const {tlir.name = "fc.weight", value = dense<[[1.5, -2.0], [3.0, 4.25]]> : tensor<2x2xf64>} : tensor<2x2xf64>
  %m = tlir.const {tlir.fixed, value = dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf64>} : tensor<2x2xf64>
  %d = tlir.mul_elem %w, %m : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  %b0 = tlir.const {value = dense<[0.5, 0.25]> : tensor<2xf64>} : tensor<2xf64>
  %b = tlir.add %b0, %b0 : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %dead = tlir.sqrt %b : (tensor<2xf64>) -> tensor<2xf64>
  %y = tlir.linear %x, %d, %b : (tensor<3x2xf64>, tensor<2x2xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  %z = tlir.linear %y, %d, %b : (tensor<3x2xf64>, tensor<2x2xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  %bb = tlir.broadcast_to %b : (tensor<2xf64>) -> tensor<3x2xf64>
  %r = tlir.add %z, %bb : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  func.return %r : tensor<3x2xf64>
}
