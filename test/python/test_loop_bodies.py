"""`pure_body`, the one test of a linalg op's body that both the dead-tensor
erasure of `convert-tlir-to-linalg` and the fold starts of
`tlir-linalg-to-loops` (`loop_starts`) ask."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.parser import Parser

from tlir.passes.convert_tlir_to_linalg import erase_unread
from tlir.passes.loop_bodies import pure_body
from tlir.passes.loop_starts import fused_starts
from tlir.universe import context

BODIES = {
    "constant": "%c = arith.constant 1.5 : f64\n    linalg.yield %c : f64",
    "arith": "%c = arith.constant 1.5 : f64\n    %d = arith.negf %c : f64\n    linalg.yield %d : f64",
    "call": "%c = func.call @g() : () -> f64\n    linalg.yield %c : f64",
}
PURE = {"constant": True, "arith": True, "call": False}


def _generic(body: str, out: str, typ: str, results: str = "") -> str:
    return f"""linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]}} outs({out} : {typ}) {{
  ^bb0(%o: f64):
    {body}
  }}{results}"""


def _function(text: str) -> func.FuncOp:
    module = Parser(context(), text).parse_module()
    return next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "f")


@pytest.mark.parametrize("name", BODIES)
def test_pure_body(name):
    typ = "memref<4xf64>"
    function = _function(f"""
func.func private @g() -> f64
func.func @f(%a: {typ}) {{
  {_generic(BODIES[name], "%a", typ)}
  func.return
}}""")
    generic = next(op for op in function.walk() if isinstance(op, GenericOp))
    assert pure_body(generic) is PURE[name]


@pytest.mark.parametrize("name", BODIES)
def test_unread_tensor_op_is_erased_only_with_a_pure_body(name):
    typ = "tensor<4xf64>"
    function = _function(f"""
func.func private @g() -> f64
func.func @f() {{
  %e = tensor.empty() : {typ}
  %r = {_generic(BODIES[name], "%e", typ, f" -> {typ}")}
  func.return
}}""")
    erase_unread(function)
    kept = [op for op in function.walk() if isinstance(op, GenericOp)]
    assert len(kept) == (0 if PURE[name] else 1)


@pytest.mark.parametrize("name", BODIES)
def test_fold_takes_a_start_only_with_a_pure_body(name):
    typ = "memref<4x3xf64>"
    start = _generic(BODIES[name], "%a", "memref<4xf64>")
    function = _function(f"""
func.func private @g() -> f64
func.func @f(%x: {typ}, %a: memref<4xf64>) {{
  {start}
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
      affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}}
      ins(%x : {typ}) outs(%a : memref<4xf64>) {{
  ^bb0(%v: f64, %s: f64):
    %t = arith.addf %s, %v : f64
    linalg.yield %t : f64
  }}
  func.return
}}""")
    ops = list(function.body.block.ops)
    taken = fused_starts(ops, set())
    assert taken == ({ops[1]: [ops[0]]} if PURE[name] else {})
