"""The compile cache: object code on disk, keyed by everything that determines it.

* Location: `$TLIR_CACHE_DIR`, else the user cache directory (`platformdirs`:
  `$XDG_CACHE_HOME/tlir`, or `~/.cache/tlir`). `TLIR_CACHE_DIR=` (set and
  empty), `--no-cache` and `cache=False` turn it off.
* Store: a `diskcache` directory (an SQLite index plus files): writes are
  atomic and several processes may compile the same model at once; the size is
  capped at `TLIR_CACHE_MAX_MB` megabytes (default 1024), evicting the least
  recently used entries.
* Entries are bytes only (never pickles): each starts with the SHA-256 of the
  rest, so a corrupt or truncated entry is dropped and recompiled, never loaded.
* An unusable cache directory costs one line on stderr, never a failure.

Keys are SHA-256 digests of a kernel's canonical text (or a model's structure)
together with `environment()`: tlir's code, llvmlite and LLVM versions, the
target triple and CPU features, the back end and the optimisation level.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

from tlir.settings import env_number

DEFAULT_MAX_MB = 1024


def _warn(message: str) -> None:
    print(f"tlir: warning: {message}", file=sys.stderr)


@functools.cache
def code_fingerprint() -> str:
    """tlir's own code (files, sizes, modification times): an edited pass must
    not meet object code compiled by its previous version."""
    import tlir
    import tlir.dialects
    import tlir.passes

    digest = hashlib.sha256()
    for package in (tlir, tlir.dialects, tlir.passes):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            stat = path.stat()
            digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()


def environment(backend: str, opt_level: int) -> str:
    """Everything besides the IR that determines generated code."""
    from tlir import jit
    from tlir.passes.contraction_kernels import host_target

    # The code fingerprint identifies tlir's version (and any local edit) without
    # importlib.metadata, which costs a cache hit 0.2 s of imports.
    parts = [f"tlir {code_fingerprint()}", jit.host().describe()]
    parts.append(f"contraction target {host_target()}")
    parts.append(f"backend {backend}; -O{opt_level}")
    if backend == "mlir":
        from tlir.backend import mlir

        parts.append(f"mlir-opt {mlir.find_tool('mlir-opt')}")
    return "\n".join(parts)


def digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


class CompileCache:
    """Checksummed byte entries in a size-capped, LRU-evicting disk store."""

    def __init__(self, directory: str, max_bytes: int):
        import diskcache

        self.directory = directory
        self.store = diskcache.Cache(
            directory, size_limit=max_bytes, eviction_policy="least-recently-used"
        )
        self.failed = False

    def get(self, key: str) -> bytes | None:
        try:
            entry = self.store.get(key)
        except Exception as err:  # noqa: BLE001 - a broken store is a cache miss
            self._disable(err)
            return None
        if not isinstance(entry, bytes) or len(entry) < 32:
            return None
        checksum, payload = entry[:32], entry[32:]
        if hashlib.sha256(payload).digest() != checksum:
            self.discard(key)
            return None
        return payload

    def put(self, key: str, payload: bytes) -> None:
        if self.failed:
            return
        try:
            self.store.set(key, hashlib.sha256(payload).digest() + payload)
        except Exception as err:  # noqa: BLE001 - the cache is an optimisation only
            self._disable(err)

    def discard(self, key: str) -> None:
        try:
            self.store.delete(key)
        except Exception as err:  # noqa: BLE001
            self._disable(err)

    def _disable(self, err: Exception) -> None:
        if not self.failed:
            _warn(f"compile cache disabled: {self.directory}: {err}")
        self.failed = True


def cache_directory() -> str | None:
    """The cache directory, or None when the environment turns the cache off."""
    configured = os.environ.get("TLIR_CACHE_DIR")
    if configured is not None:
        return configured or None
    import platformdirs

    return platformdirs.user_cache_dir("tlir")


def _max_bytes() -> int:
    try:
        megabytes = env_number("TLIR_CACHE_MAX_MB")
    except ValueError as err:
        _warn(f"{err} (megabytes): using {DEFAULT_MAX_MB}")
        return DEFAULT_MAX_MB << 20
    return DEFAULT_MAX_MB << 20 if megabytes is None else int(megabytes * (1 << 20))


_OPEN: dict[tuple[str, int], CompileCache | None] = {}


def open_cache(enabled: bool = True) -> CompileCache | None:
    """The process's cache for the configured directory (None when off or unusable)."""
    if not enabled:
        return None
    directory = cache_directory()
    if directory is None:
        return None
    key = (os.path.abspath(directory), _max_bytes())
    if key not in _OPEN:
        try:
            _OPEN[key] = CompileCache(key[0], key[1])
        except Exception as err:  # noqa: BLE001 - unwritable, not a directory, ...
            _warn(f"compile cache disabled: {directory}: {err}")
            _OPEN[key] = None
    return _OPEN[key]
