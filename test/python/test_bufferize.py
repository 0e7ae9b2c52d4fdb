"""tlir-bufferize never lets a write be observed through another name: a slice
or reshape of a tensor that is read again elsewhere is written in a copy."""

from __future__ import annotations

import numpy as np
from kernel_runner import run_kernel

ID = "affine_map<(d0) -> (d0)>"
SLICE_OF_REUSED = f"""
func.func @main(%x: tensor<2xf64>) -> (tensor<4xf64>, tensor<4xf64>) {{
  %c = arith.constant 1.0 : f64
  %e = tensor.empty() : tensor<4xf64>
  %f = linalg.fill ins(%c : f64) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  %s = tensor.extract_slice %f[1] [2] [1] : tensor<4xf64> to tensor<2xf64>
  %w = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel"]}}
       ins(%x : tensor<2xf64>) outs(%s : tensor<2xf64>) {{
  ^bb0(%a: f64, %b: f64):
    linalg.yield %a : f64
  }} -> tensor<2xf64>
  %i = tensor.insert_slice %w into %f[1] [2] [1] : tensor<2xf64> into tensor<4xf64>
  func.return %i, %f : tensor<4xf64>, tensor<4xf64>
}}
"""

RESHAPE_OF_REUSED = """
func.func @main(%x: tensor<4xf64>) -> (tensor<2x2xf64>, tensor<4xf64>) {
  %c = arith.constant 3.0 : f64
  %e = tensor.empty() : tensor<4xf64>
  %f = linalg.fill ins(%c : f64) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  %r = tensor.expand_shape %f [[0, 1]] output_shape [2, 2] : tensor<4xf64> into tensor<2x2xf64>
  %z = arith.constant 0.0 : f64
  %g = linalg.fill ins(%z : f64) outs(%r : tensor<2x2xf64>) -> tensor<2x2xf64>
  func.return %g, %f : tensor<2x2xf64>, tensor<4xf64>
}
"""


def test_slice_of_a_tensor_read_later_is_written_in_a_copy():
    (inserted, original), _ = run_kernel(SLICE_OF_REUSED, [np.array([5.0, 6.0])])
    assert inserted.tolist() == [1.0, 5.0, 6.0, 1.0]
    assert original.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_reshape_of_a_tensor_read_later_is_written_in_a_copy():
    (zeros, threes), _ = run_kernel(RESHAPE_OF_REUSED, [np.zeros(4)])
    assert zeros.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert threes.tolist() == [3.0, 3.0, 3.0, 3.0]
