"""The NumPy side of a call into compiled code, with as little Python per call as
possible: for a small model the native work takes a few microseconds, so the
checks, allocations and pointer arrays around it are most of what a caller waits.

* `ArraySpecs` checks arrays against a function's tensor types, precomputed
  once (an xDSL type is slow to ask for its shape at every call).
* `EntryCall` allocates all outputs of a call in one buffer, each a view at a
  fixed 64-byte aligned offset (one allocation and one address lookup per call
  instead of one each), and reuses the address arrays and the workspace of
  earlier calls.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

from tlir.compiler.pool import prepare
from tlir.diagnostics import TlirError
from tlir.interface import check_array, numpy_dtype

_ALIGN = 64  # a cache line: outputs written by different threads share none
_EMPTY = np.empty(1, np.uint8)  # the address passed for an empty array


def address(array: np.ndarray) -> int:
    """The address of `array`'s first element (`_EMPTY`'s for an empty array).

    `c_char.from_buffer` takes a third of the time of `array.ctypes.data`; it
    refuses read-only arrays, which take the slower path."""
    if not array.size:
        array = _EMPTY
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError, BufferError):
        return array.ctypes.data


def pointer_array(arrays: Sequence[np.ndarray]) -> ctypes.Array:
    """A C array of the arrays' addresses (one slot if there are none)."""
    pointers = [address(a) for a in arrays]
    return (ctypes.c_void_p * max(len(pointers), 1))(*pointers)


class ArraySpecs:
    """The shapes and dtypes of a function's arguments (or results), in order."""

    def __init__(self, types: Sequence) -> None:
        self.specs = [(tuple(t.get_shape()), numpy_dtype(t)) for t in types]

    def __len__(self) -> int:
        return len(self.specs)

    def check(self, arrays: Sequence, what: str, where: str) -> list[np.ndarray]:
        """Each array of its spec's exact shape and dtype, C-contiguous (copied if
        not); the caller has checked the count."""
        return check_to_specs(arrays, self.specs, what, where)


def check_to_specs(
    arrays: Sequence, specs: Sequence[tuple[tuple[int, ...], np.dtype]], what: str, where: str
) -> list[np.ndarray]:
    """Each array of its (shape, dtype) spec, C-contiguous: the array itself when
    it is one already (the common case, no call), else `check_array`'s copy or
    one-line error."""
    checked = []
    for index, (value, (shape, dtype)) in enumerate(zip(arrays, specs, strict=True)):
        if not (
            type(value) is np.ndarray
            and value.shape == shape
            and value.dtype == dtype
            and value.flags.c_contiguous
        ):
            value = check_array(value, shape, dtype, f"{what} {index}", where)
        checked.append(value)
    return checked


class EntryCall:
    """Calls a compiled entry function `(inputs**, outputs**, constants**,
    workspace*, threads) -> status` with NumPy arrays.

    Each call takes a frame from a pool (a workspace and the two address arrays);
    a frame is used by one call at a time, so concurrent calls are safe, and the
    pool keeps as many frames as calls ever ran at once: a fresh multi-megabyte
    workspace per call would cost its page faults every time.
    """

    def __init__(
        self,
        entry,
        inputs: ArraySpecs,
        outputs: Sequence[tuple[Sequence[int], np.dtype]],
        workspace_bytes: int,
        constant_pointers: ctypes.Array,
        where: str,
        cache: bool = True,
        batch: int | None = None,
    ) -> None:
        self._entry, self._inputs, self.where = entry, inputs, where
        # the last argument of a dynamic model's entry function; none for a static one
        self._batch = () if batch is None else (batch,)
        self._cache = cache  # whether the thread runtime may come from the compile cache
        self._views: list[tuple[tuple[int, ...], np.dtype, int]] = []
        offset = 0
        for shape, dtype in outputs:
            self._views.append((tuple(shape), np.dtype(dtype), offset))
            size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            offset += -(-size // _ALIGN) * _ALIGN
        self._output_bytes = offset
        self._offsets = np.array([o for _, _, o in self._views], np.uint64)
        self._workspace_bytes = max(workspace_bytes, 1)
        self._constants = constant_pointers
        self._frames: list[_Frame] = []
        self._readers: dict[int, object] = {}  # `run_split`'s, by the count of arrays

    def __call__(self, inputs: Sequence, threads: int) -> list[np.ndarray]:
        return self.run(self._inputs.check(inputs, "input", self.where), threads)

    def run(self, checked: Sequence[np.ndarray], threads: int) -> list[np.ndarray]:
        """The call on arrays already checked against the input specs."""
        buffer = self._allocate(self._output_bytes + _ALIGN, "outputs")
        base = address(buffer)
        skip = -base % _ALIGN
        outputs = [
            np.ndarray(shape, dtype, buffer, skip + offset) for shape, dtype, offset in self._views
        ]
        self._enter(checked, lambda frame: np.add(self._offsets, base + skip, out=frame), threads)
        return outputs

    def run_split(
        self, checked: Sequence[np.ndarray], threads: int, arrays: int
    ) -> tuple[list[np.ndarray], list[float]]:
        """`run` with the first `arrays` results as arrays and the others, all
        0-d (a bounds function's statuses and checks), as Python floats read
        from the buffer in one step: no array is made for a number."""
        # `run`'s body, written out again: a shared helper costs a small model's
        # call 0.1-0.2 us (2-3 %), and both are the bounds' and calls' hot path
        buffer = self._allocate(self._output_bytes + _ALIGN, "outputs")
        base = address(buffer)
        skip = -base % _ALIGN
        outputs = [
            np.ndarray(shape, dtype, buffer, skip + offset)
            for shape, dtype, offset in self._views[:arrays]
        ]
        self._enter(checked, lambda frame: np.add(self._offsets, base + skip, out=frame), threads)
        return outputs, self._numbers(arrays)(buffer, skip)

    def _numbers(self, arrays: int):
        """A reader of the 0-d results after the first `arrays`: one strided view
        where they share a dtype at even offsets (64 bytes apart: the usual
        case), else one view each."""
        reader = self._readers.get(arrays)
        if reader is None:
            tail = self._views[arrays:]
            assert all(shape == () for shape, _, _ in tail)
            dtypes = {dtype for _, dtype, _ in tail}
            offsets = [offset for _, _, offset in tail]
            steps = {b - a for a, b in zip(offsets, offsets[1:], strict=False)}
            if len(dtypes) == 1 and len(steps) <= 1:
                (dtype,) = dtypes or {np.dtype(np.float64)}
                shape, first = (len(tail),), offsets[0] if offsets else 0
                strides = (steps.pop() if steps else _ALIGN,)

                def reader(buffer: np.ndarray, skip: int) -> list[float]:
                    view = np.ndarray(shape, dtype, buffer, skip + first, strides)
                    return view.tolist()
            else:

                def reader(buffer: np.ndarray, skip: int) -> list[float]:
                    return [np.ndarray((), d, buffer, skip + o).item() for _, d, o in tail]

            self._readers[arrays] = reader
        return reader

    def run_into(
        self, checked: Sequence[np.ndarray], outputs: Sequence[np.ndarray], threads: int
    ) -> None:
        """The call writing into `outputs` (checked by the caller: the results'
        shapes and dtypes, C-contiguous, writeable). An output may be an input
        only where the compiled code reads each element before it writes it
        (an elementwise update in place)."""
        pointers = [address(array) for array in outputs]

        def place(frame: np.ndarray) -> None:
            frame[:] = pointers

        self._enter(checked, place, threads)

    def _enter(self, checked: Sequence[np.ndarray], place_outputs, threads: int) -> None:
        """Run the entry on a frame whose output addresses `place_outputs` writes."""
        if threads > 1:
            threads = prepare(threads, self._cache)  # the pool's workers (again after a fork)
        try:
            frame = self._frames.pop()  # atomic: no lock needed
        except IndexError:
            workspace = self._allocate(self._workspace_bytes + _ALIGN, "workspace")
            frame = _Frame(workspace, len(checked), len(self._views))
        try:
            for slot, array in enumerate(checked):
                frame.inputs[slot] = address(array)
            place_outputs(frame.outputs[: len(self._views)])
            status = self._entry(
                frame.inputs_address,
                frame.outputs_address,
                self._constants,
                frame.workspace_address,
                threads,
                *self._batch,
            )
        finally:
            self._frames.append(frame)
        if status:
            raise TlirError(self.where, f"the compiled model failed with status {status}")

    def _allocate(self, nbytes: int, what: str) -> np.ndarray:
        try:
            return np.empty(nbytes, np.uint8)
        except MemoryError:
            raise TlirError(self.where, f"cannot allocate the {nbytes}-byte {what}") from None


class _Frame:
    """What one call writes besides its outputs: the workspace, and the address
    arrays of the inputs and outputs (kept alive with their addresses)."""

    def __init__(self, workspace: np.ndarray, input_count: int, output_count: int) -> None:
        self.workspace = workspace  # _ALIGN bytes more than the plan's workspace
        # The plan aligns its slices within the workspace: the base must be
        # aligned too (NumPy gives 16 bytes; vectors across cache lines are slow).
        base = address(workspace)
        self.workspace_address = base + (-base % _ALIGN)
        self.inputs = np.zeros(max(input_count, 1), np.uint64)
        self.inputs_address = address(self.inputs)
        self.outputs = np.zeros(max(output_count, 1), np.uint64)
        self.outputs_address = address(self.outputs)
