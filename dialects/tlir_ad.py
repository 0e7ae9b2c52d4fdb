"""The `tlir_ad` dialect: the ops derivative programs need beyond tlir's 41.

TorchLean's op kinds cannot state everything a tangent or a gradient program
computes: a quotient rule is not `a · inv(b)` bitwise, kink conventions select
on primal comparisons, a dual contraction adds `(da·b) + (a·db)` per term, and
the backward passes of windows fold in an order no forward op has. Three
general ops cover all of it, and two contractions have an op of their own so
that each can be compiled as one:

  %q = tlir_ad.map(%a, %da, %b, %db) : (...) -> tensor<3xf64> {
  ^bb0(%x: f64, %dx: f64, %y: f64, %dy: f64):
    ...                                   // arith / math on scalars
    tlir_ad.yield %t : f64
  }
    elementwise: operands have the result shape, or are rank 0 (broadcast);
    one or more results of one shape.

  %r:2 = tlir_ad.fold ins(%x, %m) init(%z0, %z1) {bounds = array<i64: 4, 3>,
           maps = [affine_map<(d0, d1) -> (d0, d1)>, ...],
           iterators = ["parallel", "reduction"]} : (...) -> (...) { ... }
    a fold over the box `bounds`: the results are indexed by the parallel
    dimensions in order and start as the `init` tensors; at every point, in
    row-major order of the box, the region gets each input's element at its
    map and the current accumulators, and yields the new accumulators. With
    no reduction dimension it is a gather with a scalar body.

  %p = tlir_ad.pad %g {low = ..., high = ..., interior = ...}
    zero padding (+0) before, after and between the elements of every axis.

  %dx = tlir_ad.conv_input_grad %g, %wt {stride = ..., padding = ...,
          dilation = ..., groups = G, channel_axis = A} : (...) -> tensor<...>
    the input gradient of a convolution (docs/autodiff.md#d6-conv-vjp), with
    the weight in transposed layout [in_channels, out_channels/G, k...].

  %dkt = tlir_ad.conv_kernel_grad %x_pad, %g {stride = ..., dilation = ...,
           channel_axis = A} : (...) -> tensor<...>
    the kernel gradient of an ungrouped convolution (the same decision) on the
    padded input, in transposed layout [in_channels, k..., out_channels].

Two scalar ops give the directed rounding of interval bound propagation
(docs/verification.md#directed-rounding), TorchLean's `nextUp`/`nextDown`:

  %u = tlir_ad.next_up %x : f64      // NaN, +inf unchanged; ±0 → +min subnormal
  %d = tlir_ad.next_down %x : f64    // NaN, -inf unchanged; ±0 → -min subnormal

and two cheaper ones that differ from them only where a fast path checks
(docs/verification.md#performance):

  %u = tlir_ad.step_up %x : f64      // RU(x + min subnormal): next_up, but -inf
                                     // stays and -min subnormal gives +0
  %d = tlir_ad.step_down %x : f64    // RD(x - min subnormal): next_down, but +inf
                                     // stays and +min subnormal gives -0

(`convert-tlir-to-linalg` expands them into integer arithmetic on the bits.)

Every read of a fold must lie inside its input (checked by the verifier), so
the lowering never guards an access; windows that reach outside an input read
a padded copy. Regions hold only the scalar ops the compiled route lowers:
float arithmetic, comparisons, selects, i1 logic and the libm functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    I64,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineExpr
from xdsl.ir.affine.affine_expr import AffineConstantExpr, AffineDimExpr
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

I64Array = DenseArrayBase.constr(I64)


class _NextFloatOp(IRDLOperation):
    """The neighbouring float of the operand in one direction."""

    T: ClassVar = VarConstraint("T", BaseAttr(Float32Type) | BaseAttr(Float64Type))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[value.type])


@irdl_op_definition
class NextUpOp(_NextFloatOp):
    """The next float above the operand (`math.nextafter(x, inf)`)."""

    name = "tlir_ad.next_up"


@irdl_op_definition
class NextDownOp(_NextFloatOp):
    """The next float below the operand (`math.nextafter(x, -inf)`)."""

    name = "tlir_ad.next_down"


@irdl_op_definition
class StepUpOp(_NextFloatOp):
    """The operand plus the smallest subnormal, rounded upward: `nextUp` except
    that `-inf` stays and the negative smallest subnormal gives `+0` (nextUp:
    `-0`). The fast path of the interval contractions
    (docs/verification.md#performance): one AVX-512 instruction."""

    name = "tlir_ad.step_up"


@irdl_op_definition
class StepDownOp(_NextFloatOp):
    """The operand minus the smallest subnormal, rounded downward: `nextDown`
    except that `+inf` stays and the smallest subnormal gives `-0` (nextDown:
    `+0`)."""

    name = "tlir_ad.step_down"


SCALAR_OPS: tuple[type[Operation], ...] = (
    arith.ConstantOp, arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp,
    arith.NegfOp, arith.CmpfOp, arith.SelectOp, arith.AndIOp, arith.OrIOp,
    arith.XOrIOp, math.ExpOp, math.LogOp, math.TanhOp, math.SinOp, math.CosOp,
    math.SqrtOp, math.AbsFOp, math.FmaOp, NextUpOp, NextDownOp, StepUpOp, StepDownOp,
)  # fmt: skip
"""The scalar ops a region may hold: what `convert-tlir-to-linalg`'s output
already uses, so both routes to machine code lower them unchanged (`math.fma`
is the `llvm.fma` intrinsic on both: the tight interval rules read the exact
error of a product from it), and the two directed steps, which it expands into
integer arithmetic."""

PARALLEL, REDUCTION = "parallel", "reduction"


def _element(typ: Attribute, what: str, op: Operation) -> Attribute:
    if not isinstance(typ, TensorType):
        raise VerifyException(f"{op.name}: {what} must be a tensor, got {typ}")
    element = typ.element_type
    if not isinstance(element, Float32Type | Float64Type):
        raise VerifyException(f"{op.name}: {what} must be f32 or f64, got {element}")
    if any(d < 0 for d in typ.get_shape()):
        raise VerifyException(f"{op.name}: {what} must have a static shape, got {typ}")
    return element


def _result_element(op: Operation, operands: Sequence[tuple[SSAValue, str]]) -> Attribute:
    """The element type of the result, which each (operand, what) must share."""
    element = _element(op.result.type, "result", op)
    for value, what in operands:
        if _element(value.type, what, op) != element:
            raise VerifyException(f"{op.name}: {what} must have element type {element}")
    return element


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def ints(attr: DenseArrayBase) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values())


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(IntegerType(64), list(values))


def _verify_region(op: Operation, region: Region, arg_count: int, yield_count: int, element):
    """One block of `arg_count` scalar arguments, allowed ops only, ending in a
    `tlir_ad.yield` of `yield_count` scalars, all of the op's element type."""
    if len(region.blocks) != 1:
        raise VerifyException(f"{op.name}: the body must be one block")
    block = region.block
    if len(block.args) != arg_count or any(a.type != element for a in block.args):
        raise VerifyException(
            f"{op.name}: the body takes {arg_count} scalars of type {element}, got "
            f"({', '.join(str(a.type) for a in block.args)})"
        )
    last = block.last_op
    if not isinstance(last, YieldOp):
        raise VerifyException(f"{op.name}: the body must end in tlir_ad.yield")
    if len(last.values) != yield_count or any(v.type != element for v in last.values):
        raise VerifyException(f"{op.name}: the body must yield {yield_count} values of {element}")
    for inner in block.ops:
        if inner is not last and not isinstance(inner, SCALAR_OPS):
            raise VerifyException(f"{op.name}: '{inner.name}' is not allowed in the body")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The values a `map` or `fold` body produces at one point."""

    name = "tlir_ad.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class MapOp(IRDLOperation):
    """Elementwise: the body's scalar program at every element."""

    name = "tlir_ad.map"
    inputs = var_operand_def()
    outs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(Pure())
    assembly_format = "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outs) $body"

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region):
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)], regions=[body])

    def verify_(self) -> None:
        if not self.outs:
            raise VerifyException(f"{self.name}: needs at least one result")
        element = _element(self.outs[0].type, "result", self)
        shape = _shape(self.outs[0])
        for result in self.outs:
            if _element(result.type, "result", self) != element or _shape(result) != shape:
                raise VerifyException(f"{self.name}: all results must have one type")
        for value in self.inputs:
            if _element(value.type, "operand", self) != element:
                raise VerifyException(f"{self.name}: operands must have element type {element}")
            if _shape(value) not in (shape, ()):
                raise VerifyException(
                    f"{self.name}: operand shape {list(_shape(value))} is neither the result "
                    f"shape {list(shape)} nor a scalar"
                )
        _verify_region(self, self.body, len(self.inputs), len(self.outs), element)


def linear_form(expr: AffineExpr, num_dims: int) -> tuple[list[int], int]:
    """(coefficients per dimension, constant) of a sum of scaled dimensions."""
    match expr:
        case AffineConstantExpr(value=value):
            return [0] * num_dims, value
        case AffineDimExpr(position=position):
            coefficients = [0] * num_dims
            coefficients[position] = 1
            return coefficients, 0
        case AffineBinaryOpExpr(kind=AffineBinaryOpKind.Add, lhs=lhs, rhs=rhs):
            (a, ca), (b, cb) = linear_form(lhs, num_dims), linear_form(rhs, num_dims)
            return [x + y for x, y in zip(a, b, strict=True)], ca + cb
        case AffineBinaryOpExpr(kind=AffineBinaryOpKind.Mul, lhs=lhs, rhs=rhs):
            (a, ca), (b, cb) = linear_form(lhs, num_dims), linear_form(rhs, num_dims)
            if any(a) and any(b):
                raise ValueError(f"{expr} is not linear")
            if any(a):
                return [x * cb for x in a], ca * cb
            return [x * ca for x in b], ca * cb
    raise ValueError(f"{expr} is not a sum of scaled dimensions")


def _range(coefficients: list[int], constant: int, bounds: Sequence[int]) -> tuple[int, int]:
    """Smallest and largest value over the box (a linear form peaks at a corner)."""
    low = high = constant
    for c, n in zip(coefficients, bounds, strict=True):
        low += min(0, c * (n - 1))
        high += max(0, c * (n - 1))
    return low, high


@irdl_op_definition
class FoldOp(IRDLOperation):
    """A fold over a box of points in row-major order; see the module docstring."""

    name = "tlir_ad.fold"
    inputs = var_operand_def()
    inits = var_operand_def()
    outs = var_result_def()
    bounds = prop_def(I64Array)
    maps = prop_def(ArrayAttr[AffineMapAttr])
    iterators = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "`ins` `(` $inputs `)` `init` `(` $inits `)` attr-dict `:` "
        "`(` type($inputs) `)` `,` `(` type($inits) `)` `->` type($outs) $body"
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        inits: Sequence[SSAValue],
        bounds: Sequence[int],
        maps: Sequence[AffineMapAttr],
        iterators: Sequence[str],
        body: Region,
    ):
        super().__init__(
            operands=[list(inputs), list(inits)],
            result_types=[[v.type for v in inits]],
            properties={
                "bounds": i64_array(bounds),
                "maps": ArrayAttr(list(maps)),
                "iterators": ArrayAttr([StringAttr(i) for i in iterators]),
            },
            regions=[body],
        )

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(i.data for i in self.iterators.data)

    @property
    def parallel_dims(self) -> list[int]:
        return [d for d, kind in enumerate(self.kinds) if kind == PARALLEL]

    def verify_(self) -> None:
        bounds = ints(self.bounds)
        if any(n < 0 for n in bounds):
            raise VerifyException(f"{self.name}: bounds must be non-negative")
        if len(self.kinds) != len(bounds) or set(self.kinds) - {PARALLEL, REDUCTION}:
            raise VerifyException(
                f"{self.name}: one iterator ('parallel' or 'reduction') per bound"
            )
        if not self.outs or len(self.inits) != len(self.outs):
            raise VerifyException(f"{self.name}: one init per result, at least one")
        element = _element(self.outs[0].type, "result", self)
        out_shape = tuple(bounds[d] for d in self.parallel_dims)
        for init, result in zip(self.inits, self.outs, strict=True):
            if init.type != result.type or _element(init.type, "init", self) != element:
                raise VerifyException(f"{self.name}: inits and results must have one type")
            if _shape(result) != out_shape:
                raise VerifyException(
                    f"{self.name}: result shape {list(_shape(result))} is not the parallel "
                    f"bounds {list(out_shape)}"
                )
        if len(self.maps) != len(self.inputs):
            raise VerifyException(f"{self.name}: one map per input")
        for index, (value, map_attr) in enumerate(zip(self.inputs, self.maps, strict=True)):
            if _element(value.type, "input", self) != element:
                raise VerifyException(f"{self.name}: inputs must have element type {element}")
            self._verify_access(index, _shape(value), map_attr, bounds)
        _verify_region(self, self.body, len(self.inputs) + len(self.outs), len(self.outs), element)

    def _verify_access(self, index: int, shape, map_attr: AffineMapAttr, bounds) -> None:
        affine = map_attr.data
        if affine.num_dims != len(bounds) or affine.num_symbols:
            raise VerifyException(f"{self.name}: map {index} must have {len(bounds)} dimensions")
        if len(affine.results) != len(shape):
            raise VerifyException(f"{self.name}: map {index} must give {len(shape)} indices")
        if 0 in bounds:
            return  # no point is visited
        for axis, (expr, extent) in enumerate(zip(affine.results, shape, strict=True)):
            try:
                low, high = _range(*linear_form(expr, len(bounds)), bounds)
            except ValueError as err:
                raise VerifyException(f"{self.name}: map {index}: {err}") from None
            if low < 0 or high >= extent:
                raise VerifyException(
                    f"{self.name}: map {index} reads axis {axis} at [{low}, {high}], outside "
                    f"[0, {extent})"
                )


def padded_extent(n: int, low: int, high: int, interior: int) -> int:
    return low + high + n + max(n - 1, 0) * interior


@irdl_op_definition
class PadOp(IRDLOperation):
    """Zero padding: `low` before, `high` after and `interior` between elements."""

    name = "tlir_ad.pad"
    input = operand_def()
    low = prop_def(I64Array)
    high = prop_def(I64Array)
    interior = prop_def(I64Array)
    result = result_def()
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` functional-type($input, $result)"

    def __init__(self, value: SSAValue, low, high, interior, result_type: Attribute):
        super().__init__(
            operands=[value],
            result_types=[result_type],
            properties={
                "low": i64_array(low),
                "high": i64_array(high),
                "interior": i64_array(interior),
            },
        )

    def verify_(self) -> None:
        element = _element(self.input.type, "operand", self)
        if _element(self.result.type, "result", self) != element:
            raise VerifyException(f"{self.name}: operand and result must have one element type")
        shape = _shape(self.input)
        low, high, interior = ints(self.low), ints(self.high), ints(self.interior)
        if not len(low) == len(high) == len(interior) == len(shape):
            raise VerifyException(f"{self.name}: low, high and interior need one entry per axis")
        if min((*low, *high, *interior), default=0) < 0:
            raise VerifyException(f"{self.name}: padding amounts must be non-negative")
        want = tuple(map(padded_extent, shape, low, high, interior))
        if _shape(self.result) != want:
            raise VerifyException(
                f"{self.name}: result shape {list(_shape(self.result))} should be {list(want)}"
            )


@irdl_op_definition
class ConvInputGradOp(IRDLOperation):
    """D6's input gradient of `tlir.conv` (docs/autodiff.md#d6-conv-vjp) on the
    cotangent g and the weight in transposed layout, wt[gr·cin + l, m, k] =
    weight[gr·cout + m, l, k] (cin, cout: channels per group):

        dx[lead, gr·cin + l, i] = fold from +0, over m (ascending), then the
          kernel cells k (row-major), of g[lead, gr·cout + m, o]·wt[gr·cin + l, m, k]
          for each k with a whole o = (i + padding − k·dilation)/stride in [0, out)

    one product then one sum per term, and only those terms: a position that
    no window reaches is +0, and a non-finite weight cell is never paired with
    a position its window misses. The operands fix the extents (the result's
    spatial extents are the conv's input's)."""

    name = "tlir_ad.conv_input_grad"
    grad = operand_def()
    weight = operand_def()
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    dilation = prop_def(I64Array)
    groups = prop_def(IntegerAttr[I64])
    channel_axis = prop_def(IntegerAttr[I64])
    result = result_def()
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$grad `,` $weight attr-dict `:` functional-type(operands, results)"

    def __init__(self, grad: SSAValue, weight: SSAValue, geometry: dict, result_type: Attribute):
        super().__init__(
            operands=[grad, weight],
            result_types=[result_type],
            properties={
                "stride": i64_array(geometry["stride"]),
                "padding": i64_array(geometry["padding"]),
                "dilation": i64_array(geometry["dilation"]),
                "groups": IntegerAttr(geometry["groups"], 64),
                "channel_axis": IntegerAttr(geometry["channel_axis"], 64),
            },
        )

    @property
    def geometry(self) -> ConvGradGeometry:
        return ConvGradGeometry.of(self)

    def verify_(self) -> None:
        _result_element(self, ((self.grad, "cotangent"), (self.weight, "weight")))
        g, w, x = _shape(self.grad), _shape(self.weight), _shape(self.result)
        stride, padding, dilation = ints(self.stride), ints(self.padding), ints(self.dilation)
        rank, axis, groups = len(w) - 2, self.channel_axis.value.data, self.groups.value.data
        if rank < 1 or not len(stride) == len(padding) == len(dilation) == rank:
            raise VerifyException(f"{self.name}: stride, padding, dilation need one entry per axis")
        if min(stride + dilation) < 1 or min(padding) < 0:
            raise VerifyException(f"{self.name}: stride and dilation ≥ 1, padding ≥ 0")
        if axis < 0 or len(g) != axis + 1 + rank or len(x) != len(g) or g[:axis] != x[:axis]:
            raise VerifyException(
                f"{self.name}: cotangent {list(g)} and result {list(x)} must be "
                f"[lead…, channels, spatial…] with {rank} spatial axes after axis {axis}"
            )
        if groups < 1 or x[axis] != w[0] or w[0] % groups or g[axis] != groups * w[1]:
            raise VerifyException(
                f"{self.name}: weight {list(w)} must be [in_channels = {x[axis]}, "
                f"out_channels / groups = {g[axis]} / {groups}, kernel…]"
            )


@dataclass(frozen=True)
class ConvGradGeometry:
    """The extents and window of a `conv_input_grad`: lead axes, groups, channels
    per group (cin in, cout out), kernel, and per spatial axis stride, padding
    before, dilation, input (result) and output (cotangent) extents."""

    lead: tuple[int, ...]
    groups: int
    cin: int
    cout: int
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    in_spatial: tuple[int, ...]
    out_spatial: tuple[int, ...]

    @staticmethod
    def of(op: ConvInputGradOp) -> ConvGradGeometry:
        axis, groups = op.channel_axis.value.data, op.groups.value.data
        w, x, g = _shape(op.weight), _shape(op.result), _shape(op.grad)
        return ConvGradGeometry(
            x[:axis], groups, w[0] // groups, w[1], w[2:], ints(op.stride), ints(op.padding),
            ints(op.dilation), x[axis + 1 :], g[axis + 1 :],
        )  # fmt: skip

    def valid(self, axis: int, cell: int) -> tuple[list[int], list[int]]:
        """The input positions i of `axis` that kernel cell `cell` reaches, and
        the output o each one reads: o·stride = i + padding − cell·dilation."""
        s, p, dl = self.stride[axis], self.padding[axis], self.dilation[axis]
        ins, outs = [], []
        for i in range(self.in_spatial[axis]):
            shifted = i + p - cell * dl
            if shifted % s == 0 and 0 <= shifted // s < self.out_spatial[axis]:
                ins.append(i)
                outs.append(shifted // s)
        return ins, outs


@irdl_op_definition
class ConvKernelGradOp(IRDLOperation):
    """D6's kernel gradient of an ungrouped `tlir.conv`
    (docs/autodiff.md#d6-conv-vjp) on the zero-padded input x_pad and the
    cotangent g, in transposed layout [in_channels, k…, out_channels]:

        dkt[c, k, oc] = fold from +0, over the leading positions, then the output
          positions o (row-major), of x_pad[lead, c, o·stride + k·dilation]·g[lead, oc, o]

    one product then one sum per term (the padded cells' terms included, as in
    D6). The operands fix the extents except the kernel, which the result's
    middle axes give; every read lies inside x_pad."""

    name = "tlir_ad.conv_kernel_grad"
    input = operand_def()
    grad = operand_def()
    stride = prop_def(I64Array)
    dilation = prop_def(I64Array)
    channel_axis = prop_def(IntegerAttr[I64])
    result = result_def()
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input `,` $grad attr-dict `:` functional-type(operands, results)"

    def __init__(self, x_pad: SSAValue, grad: SSAValue, geometry: dict, result_type: Attribute):
        super().__init__(
            operands=[x_pad, grad],
            result_types=[result_type],
            properties={
                "stride": i64_array(geometry["stride"]),
                "dilation": i64_array(geometry["dilation"]),
                "channel_axis": IntegerAttr(geometry["channel_axis"], 64),
            },
        )

    @property
    def geometry(self) -> ConvKernelGradGeometry:
        return ConvKernelGradGeometry.of(self)

    def verify_(self) -> None:
        _result_element(self, ((self.input, "input"), (self.grad, "cotangent")))
        x, g, r = _shape(self.input), _shape(self.grad), _shape(self.result)
        stride, dilation = ints(self.stride), ints(self.dilation)
        rank, axis = len(r) - 2, self.channel_axis.value.data
        if rank < 1 or not len(stride) == len(dilation) == rank:
            raise VerifyException(f"{self.name}: stride and dilation need one entry per axis")
        if min(stride + dilation) < 1:
            raise VerifyException(f"{self.name}: stride and dilation must be ≥ 1")
        if axis < 0 or len(x) != axis + 1 + rank or len(g) != len(x) or g[:axis] != x[:axis]:
            raise VerifyException(
                f"{self.name}: input {list(x)} and cotangent {list(g)} must be "
                f"[lead…, channels, spatial…] with {rank} spatial axes after axis {axis}"
            )
        if r[0] != x[axis] or r[-1] != g[axis]:
            raise VerifyException(
                f"{self.name}: result {list(r)} must be [in_channels = {x[axis]}, kernel…, "
                f"out_channels = {g[axis]}]"
            )
        for a in range(rank):
            n_out, k, n_in = g[axis + 1 + a], r[1 + a], x[axis + 1 + a]
            if n_out and k and (n_out - 1) * stride[a] + (k - 1) * dilation[a] >= n_in:
                raise VerifyException(
                    f"{self.name}: windows of spatial axis {a} reach past the input ({n_in})"
                )


@dataclass(frozen=True)
class ConvKernelGradGeometry:
    """The extents and window of a `conv_kernel_grad`: lead axes, channels in
    and out, kernel, stride, dilation, padded input and output extents."""

    lead: tuple[int, ...]
    channels: int
    out_channels: int
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    in_spatial: tuple[int, ...]
    out_spatial: tuple[int, ...]

    @staticmethod
    def of(op: ConvKernelGradOp) -> ConvKernelGradGeometry:
        axis = op.channel_axis.value.data
        x, g, r = _shape(op.input), _shape(op.grad), _shape(op.result)
        return ConvKernelGradGeometry(
            x[:axis], x[axis], g[axis], r[1:-1], ints(op.stride), ints(op.dilation),
            x[axis + 1 :], g[axis + 1 :],
        )  # fmt: skip


ROW_STRIPS = "tlir.row_strips"
"""A fold's (and the `linalg.generic` it becomes) loop order hint: `[dim,
inner, w1, w2, ...]`, its parallel dimension `dim` run in strips of rows
(`tlir-linalg-to-loops`, `RowStrips`). The fold's results do not depend on it."""


def keep_row_strips(old: Operation, new: Operation) -> None:
    """`ROW_STRIPS` of `old` onto `new`, which computes what `old` did."""
    if ROW_STRIPS in old.attributes:
        new.attributes[ROW_STRIPS] = old.attributes[ROW_STRIPS]


AD_OPS = (MapOp, FoldOp, PadOp, ConvInputGradOp, ConvKernelGradOp)
"""The auxiliary ops with a lowering and a reference evaluator (`yield` is
part of their bodies)."""

TlirAD = Dialect(
    "tlir_ad",
    [
        MapOp,
        FoldOp,
        PadOp,
        ConvInputGradOp,
        ConvKernelGradOp,
        YieldOp,
        NextUpOp,
        NextDownOp,
        StepUpOp,
        StepDownOp,
    ],
    [],
)
