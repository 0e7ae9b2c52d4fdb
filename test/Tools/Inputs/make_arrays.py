"""Arrays for the tlir-run derivative tests: `make_arrays.py PREFIX` writes
PREFIX.x.npy (2x4), PREFIX.dx.npy, PREFIX.dy.npz (output0: [3], output1: [2, 1]),
PREFIX.dy1.npz (keys dy0, dy1), PREFIX.pt.npz (node1.weight), PREFIX.bad.npz and
float32 PREFIX.x32.npy, PREFIX.dy32.npz."""

import sys

import numpy as np

prefix = sys.argv[1]
rng = np.random.default_rng(7)
np.save(f"{prefix}.x.npy", rng.standard_normal((2, 4)))
np.save(f"{prefix}.dx.npy", rng.standard_normal((2, 4)))
dy = {"output0": rng.standard_normal(3), "output1": rng.standard_normal((2, 1))}
np.savez(f"{prefix}.dy.npz", **dy)
np.savez(f"{prefix}.dy1.npz", dy0=dy["output0"], dy1=dy["output1"])
np.savez(f"{prefix}.pt.npz", **{"node1.weight": rng.standard_normal((3, 4))})
np.savez(f"{prefix}.bad.npz", **{"node9.weight": np.ones(3)})
np.save(f"{prefix}.x32.npy", rng.standard_normal((2, 4)).astype(np.float32))
np.savez(f"{prefix}.dy32.npz", **{k: v.astype(np.float32) for k, v in dy.items()})
