"""The stops of `tlir.compile(path)`: which of tlir's modules the call passes
through, in order, before the compile proper (the first call into the build),
as seen by a profiler hook. Consecutive calls into one module are one stop.

  python bench/call_path.py [MODEL] [--depth N] [--call forward|ibp|ibp_ball|bounds]

prints the stops at each depth below `tlir.compile` up to N (default 2): at
depth 1 the functions `tlir.compile` calls itself, at depth 2 those and the
ones they call. `--call`: the stops of one call of the compiled model instead
(after a first one), on a box of radius 0.01 for the bounds; every call into
tlir counts (no build to stop at). Works on any checkout (the compile
machinery in `tlir/` or in `tlir/compiler/`)."""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tlir  # noqa: E402

BUILD_MODULES = ("tlir.build", "tlir.compiler.build")

SKIPPED = ("tlir.interpreter",)
"""Left out with what they call: the collector pause, a decorator's own frames."""


def trace(model: str, depth: int, call: str | None = None) -> list[tuple[int, str, str]]:
    """(depth, module, function) of each call into tlir below `tlir.compile`
    (or the model's method `call`), up to `depth`, until the first call into
    the build. Depth counts tlir's frames only, so a decorator's wrapper
    (contextlib's) is no level; what a module runs when it is first imported
    is left out."""
    calls: list[tuple[int, str, str]] = []
    stack: list[bool | None] = []  # per active frame below compile: tlir's? (None: an import)
    state = {"inside": False, "done": False}
    if call is None:
        target = getattr(tlir.compile, "__wrapped__", tlir.compile).__code__

        def run():
            return tlir.compile(model, cache=False)
    else:
        target, run = _model_call(model, call)

    def hook(frame, event, arg):
        if event == "call":
            if not state["inside"]:
                state["inside"] = frame.f_code is target
                return
            module = frame.f_globals.get("__name__", "")
            importing = frame.f_code.co_name == "<module>" or (stack and stack[-1] is None)
            ours = None if importing or module in SKIPPED else module.startswith("tlir")
            level = sum(1 for tlir_frame in stack if tlir_frame) + 1
            stack.append(ours)
            if ours is None:
                return
            if module.startswith(BUILD_MODULES):
                state["done"] = True
            if ours and not state["done"] and level <= depth:
                calls.append((level, module, frame.f_code.co_name))
        elif event == "return" and state["inside"]:
            if not stack:
                state["inside"] = False
            else:
                stack.pop()

    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def _model_call(model: str, call: str):
    """The code of the compiled model's method `call` and a call of it, made once."""
    import numpy as np

    from tlir.interface import numpy_dtype

    compiled = tlir.compile(model)
    types = compiled.function_type.inputs.data
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=t.get_shape()).astype(numpy_dtype(t)) for t in types]
    lows, highs = [x - x.dtype.type(0.01) for x in xs], [x + x.dtype.type(0.01) for x in xs]
    runs = {
        "forward": ("__call__", lambda: compiled(*xs)),
        "ibp": ("ibp", lambda: compiled.ibp(lows, highs)),
        "ibp_ball": ("ibp_ball", lambda: compiled.ibp_ball(xs, 0.01)),
        "bounds": ("bounds", lambda: compiled.bounds(lows, highs)),
    }
    name, run = runs[call]
    run()
    method = getattr(type(compiled), name)
    return getattr(method, "__wrapped__", method).__code__, run


def stops(calls: list[tuple[int, str, str]], depth: int) -> list[str]:
    path: list[str] = []
    for level, module, _ in calls:
        if level <= depth and (not path or path[-1] != module):
            path.append(module)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?", default=os.path.join(ROOT, "examples", "cnn.json"))
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="list every call")
    parser.add_argument("--call", choices=["forward", "ibp", "ibp_ball", "bounds"])
    args = parser.parse_args()
    calls = trace(args.model, args.depth, args.call)
    if args.verbose:
        for level, module, name in calls:
            print(f"{'  ' * level}{module}.{name}")
    for depth in range(1, args.depth + 1):
        path = stops(calls, depth)
        print(f"depth {depth}: {len(path)} stops: {' -> '.join(path)}")


if __name__ == "__main__":
    main()
