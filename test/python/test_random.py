"""TorchLean's random numbers (docs/random.md): the docs/random.md#test-vectors, through the ops."""

from __future__ import annotations

import numpy as np
from conftest import run_mlir

from tlir import rng


def rand_module(seed: int, node_id: int, shape: str, dtype: str) -> str:
    typ = f"tensor<{shape}{dtype}>"
    return (
        f"func.func @main(%x: tensor<{dtype}>) -> {typ} {{\n"
        f"  %r = tlir.rand_uniform {{seed = {seed} : i64, node_id = {node_id} : i64}} : {typ}\n"
        f"  func.return %r : {typ}\n}}"
    )


def mask_module(seed: int, node_id: int, shape: str, dtype: str) -> str:
    typ = f"tensor<{shape}{dtype}>"
    return (
        f"func.func @main(%p: tensor<{dtype}>) -> {typ} {{\n"
        f"  %r = tlir.bernoulli_mask %p {{seed = {seed} : i64, node_id = {node_id} : i64}}"
        f" : (tensor<{dtype}>) -> {typ}\n  func.return %r : {typ}\n}}"
    )


def test_mixer_and_key():
    assert rng.mix_int(0) == 0xE220A8397B1DCDAF
    assert rng.key_of(0, 1) == 0x910A2DEC89025CC1
    assert rng.key_of(42, 3) == 0xF7E9F3F88CC04AD6
    assert rng.key_of(2**64 + 5, 0) == rng.key_of(5, 0)


def test_first_draws_of_seed0_node1():
    assert rng.draws(0, 1, 3).tolist() == [0x7439611E, 840412675, 2524120683]


def test_rand_uniform_float64_vector():
    got = run_mlir(rand_module(0, 1, "2x3x", "f64"), np.array(0.0))[0]
    assert got.tolist() == [
        [0.454000539612025, 0.19567382405512035, 0.587692643282935],
        [0.29627113579772413, 0.5938280455302447, 0.7954476890154183],
    ]
    assert got[0, 0] == 1949917470 / 2**32


def test_rand_uniform_seed42_and_bernoulli():
    got = run_mlir(rand_module(42, 3, "8x", "f64"), np.array(0.0))[0]
    assert np.round(got, 5).tolist() == [
        0.97401, 0.99428, 0.63259, 0.31982, 0.79520, 0.23152, 0.89815, 0.80271
    ]  # fmt: skip
    half = run_mlir(mask_module(42, 3, "8x", "f64"), np.array(0.5))[0]
    assert half.tolist() == [0, 0, 0, 1, 0, 1, 0, 0]
    assert run_mlir(mask_module(42, 3, "8x", "f64"), np.array(1.0))[0].tolist() == [1] * 8
    assert run_mlir(mask_module(42, 3, "8x", "f64"), np.array(0.0))[0].tolist() == [0] * 8
    assert run_mlir(mask_module(42, 3, "8x", "f64"), np.array(np.nan))[0].tolist() == [0] * 8


def test_rand_uniform_float32_vector():
    got = run_mlir(rand_module(7, 5, "4x", "f32"), np.array(0.0, np.float32))[0]
    assert got.dtype == np.float32
    expect = np.array([0.36074856, 0.44378945, 0.9248237, 0.2661179], np.float32)
    assert np.array_equal(got, expect)


def test_float32_uniform_can_round_to_one():
    # u >= 2^32 - 128 rounds to 2^32 in binary32, so the uniform is exactly 1.0
    values = np.array([2**32 - 1, 2**32 - 128, 2**32 - 129], np.uint32)
    assert (values.astype(np.float32) / np.float32(2**32)).tolist()[:2] == [1.0, 1.0]


def test_seed_wraps_modulo_2_pow_64():
    a = run_mlir(rand_module(2**64 - 1, 1, "3x", "f64"), np.array(0.0))[0]
    b = run_mlir(rand_module(-1, 1, "3x", "f64"), np.array(0.0))[0]
    assert a.tolist() == b.tolist()
    key = rng.key_of(2**64 - 1, 1)
    assert a[0] == (rng.mix_int((key + 0) % 2**64) & 0xFFFFFFFF) / 2**32
