"""TorchLean's shape rules (docs/ops.md) on hand-worked cases."""

import pytest

from tlir import shapes
from tlir.shapes import ConvConfig, ShapeError


@pytest.mark.parametrize(
    ("extent", "kernel", "stride", "padding", "expected"),
    [
        (4, 2, 2, 0, 2),  # (4 - 2) // 2 + 1
        (5, 3, 2, 1, 3),  # (5 + 2 - 3) // 2 + 1
        (5, 2, 1, 2, 0),  # padding 2 > 2 // 2: empty axis, not an error
        (5, 7, 1, 0, 0),  # window does not fit: empty axis
        (4, 7, 1, 1, 0),  # 4 + 2 < 7
        (5, 7, 1, 1, 1),  # 5 + 2 = 7: one window
        (0, 1, 1, 0, 0),  # empty input
        (1, 1, 1, 0, 1),
        (7, 3, 3, 1, 3),  # (7 + 2 - 3) // 3 + 1
    ],
)
def test_pool_out_dim(extent, kernel, stride, padding, expected):
    assert shapes.pool_out_dim(extent, kernel, stride, padding) == expected


def test_pool_keeps_leading_axes():
    assert shapes.pool((2, 3, 4, 4), (2, 2), (2, 2), (0, 0)) == (2, 3, 2, 2)
    assert shapes.pool((5,), (3,), (2,), (1,)) == (3,)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (((4,), (), (), ()), "spatial_rank must be positive"),
        (((4,), (2, 2), (1, 1), (0, 0)), "spatial_rank 2 exceeds"),
        (((4, 4), (2, 0), (1, 1), (0, 0)), "kernel extent is 0 at spatial axis 1"),
        (((4, 4), (2, 2), (1, 0), (0, 0)), "stride is 0 at spatial axis 1"),
    ],
)
def test_pool_rejections(args, message):
    with pytest.raises(ShapeError, match=message):
        shapes.pool(*args)


@pytest.mark.parametrize(
    ("lhs", "rhs", "expected"),
    [
        ((2, 3), (3, 4), (2, 4)),
        ((5, 1, 2, 3), (7, 3, 4), (5, 7, 2, 4)),
        ((1, 2, 3), (0, 3, 4), (0, 2, 4)),  # a 1 broadcasts to 0
        ((3,), (7, 3, 4), (7, 4)),
        ((2, 3), (3,), (2,)),
        ((3,), (3,), ()),
        ((4, 2, 3), (4, 3, 5), (4, 2, 5)),
    ],
)
def test_matmul_cases(lhs, rhs, expected):
    assert shapes.matmul(lhs, rhs) == expected


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [((), (3,)), ((3,), ()), ((2, 3), (4, 5)), ((2, 2, 3), (3, 3, 4)), ((3,), (2,))],
)
def test_matmul_rejections(lhs, rhs):
    with pytest.raises(ShapeError):
        shapes.matmul(lhs, rhs)


def test_broadcast_rules():
    assert shapes.broadcast_to((3, 1), (2, 3, 5)) == (2, 3, 5)
    assert shapes.broadcast_to((1,), (0,)) == (0,)
    assert shapes.broadcast_to((), (2, 2)) == (2, 2)
    with pytest.raises(ShapeError, match="neither 1 nor 0"):
        shapes.broadcast_to((2,), (0,))
    with pytest.raises(ShapeError, match="source rank 2 exceeds target rank 1"):
        shapes.broadcast_to((2, 3), (3,))


def _conv(**overrides):
    base = dict(
        kernel=(3, 3), stride=(1, 1), padding=(1, 1), padding_after=(1, 1),
        dilation=(1, 1), groups=1, channel_axis=1, in_channels=2, out_channels=4,
    )  # fmt: skip
    base.update(overrides)
    return ConvConfig(**base)


def test_conv_output_extents():
    # floor((5 + 1 + 1 - 3) / 1) + 1 = 5
    assert shapes.conv((1, 2, 5, 5), _conv()) == (1, 4, 5, 5)
    # dilation 2, kernel 2: window 3; floor((5 - 3) / 1) + 1 = 3
    cfg = _conv(kernel=(2, 2), padding=(0, 0), padding_after=(0, 0), dilation=(2, 2))
    assert shapes.conv((1, 2, 5, 5), cfg) == (1, 4, 3, 3)
    # asymmetric: axis 0: (5+0+1-3)//2+1 = 2; axis 1: (5+2+0-3)//1+1 = 5
    cfg = _conv(stride=(2, 1), padding=(0, 2), padding_after=(1, 0))
    assert shapes.conv((1, 2, 5, 5), cfg) == (1, 4, 2, 5)
    # unbatched 1-D sample, channel axis 0
    cfg = _conv(kernel=(3,), stride=(2,), padding=(0,), padding_after=(0,), dilation=(1,),
                channel_axis=0, in_channels=3, out_channels=2)  # fmt: skip
    assert shapes.conv((3, 7), cfg) == (2, 3)


def test_conv_checks_in_torchlean_order():
    # in_channels = 0 is reported before the channel-extent mismatch it also causes
    with pytest.raises(ShapeError, match="in_channels must be positive"):
        shapes.conv((1, 2, 5, 5), _conv(in_channels=0, groups=0))
    with pytest.raises(ShapeError, match="groups must be positive"):
        shapes.conv((1, 3, 5, 5), _conv(groups=0))
    with pytest.raises(ShapeError, match="window of extent 5 does not fit"):
        shapes.conv((1, 2, 2, 2), _conv(kernel=(5, 5), padding=(0, 0), padding_after=(0, 0)))


def test_concat_and_layernorm():
    assert shapes.concat([(2, 3), (2, 0), (2, 1)], 1) == (2, 4)
    with pytest.raises(ShapeError, match="at least 2"):
        shapes.concat([(2, 3)], 0)
    assert shapes.layernorm((0, 3), 1) == (0, 3)  # empty sequence is fine
    with pytest.raises(ShapeError, match="no elements"):
        shapes.layernorm((3, 0), 1)


def test_reduce_and_reshape():
    assert shapes.reduce_axis((2, 3, 4), 1) == (2, 4)
    with pytest.raises(ShapeError, match="extent 0"):
        shapes.reduce_axis((2, 0), 1)
    assert shapes.reshape((2, 3), (3, 2)) == (3, 2)
    assert shapes.flatten(()) == (1,)
    with pytest.raises(ShapeError, match="6 elements"):
        shapes.reshape((2, 3), (4,))
