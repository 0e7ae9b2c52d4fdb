"""The cost of a `?` batch: a dynamic-batch model's call against a static
compile of the same model at the same batch, measured in the same run, and the
first call at a batch not met before (the model's one compile on the first
batch; then nothing to compile, unless a kernel is not batch-generic).

  python bench/dynamic_batch.py [--repeat 200] [--batches 1 32 256] [--threads 1]

Models: examples/train.py's MLP and CNN (built at two batches and generalized,
as the example does). Times are the minimum over `--repeat` calls after a warm
call; every dynamic result is checked bit-identical to the static one.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from dynamic_models import dynamic_models, options  # noqa: E402

import tlir  # noqa: E402
from tlir.passes.tlir_specialize_batch import specialize  # noqa: E402


def best(call, repeat: int) -> float:
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    args = options(__doc__.split("\n")[0], 200)
    rng = np.random.default_rng(0)
    print(
        f"{'model':6} {'batch':>6} {'static µs':>10} {'dynamic µs':>11} {'ratio':>6} "
        f"{'first call s':>13}"
    )
    with tempfile.TemporaryDirectory() as out:
        for name, dynamic, module, shape in dynamic_models(Path(out), args.threads):
            for batch in args.batches:
                x = rng.random((batch, *shape))
                start = time.perf_counter()
                got = dynamic(x)
                first = time.perf_counter() - start
                static = tlir.compile(specialize(module, batch), threads=args.threads)
                want = static(x)
                assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want, strict=True))
                t_static = best(lambda s=static, v=x: s(v), args.repeat)
                t_dynamic = best(lambda d=dynamic, v=x: d(v), args.repeat)
                print(
                    f"{name:6} {batch:6d} {t_static * 1e6:10.1f} {t_dynamic * 1e6:11.1f} "
                    f"{t_dynamic / t_static:6.2f} {first:13.2f}"
                )


if __name__ == "__main__":
    main()
