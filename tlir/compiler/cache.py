"""The compile cache: object code on disk, keyed by everything that determines it.

* Location: `$TLIR_CACHE_DIR`, else the user cache directory (`platformdirs`:
  `$XDG_CACHE_HOME/tlir`, or `~/.cache/tlir`). `TLIR_CACHE_DIR=` (set and
  empty), `--no-cache` and `cache=False` turn it off.
* Trust: object code from the cache is linked into the process, so only the
  user may write the cache. As ssh and ccache do, a directory or database that
  another user owns, or that group or others may write, is refused — as is a
  directory under one that someone else could rename it out of (an ancestor
  neither the user's nor root's, or writable by others without the sticky
  bit). A refused cache costs one warning line and the compile runs uncached.
  The directory is created 0700, the database 0600 (SQLite gives its `-wal`
  and `-shm` files the database's mode).
* Store: one SQLite database, `cache.sqlite3`, in WAL mode: each write is one
  transaction, so several processes may compile the same model at once and a
  process that dies leaves nothing half-written. Values are BLOBs returned as
  bytes — nothing is ever unpickled. The size is capped at `TLIR_CACHE_MAX_MB`
  megabytes (default 1024), evicting the least recently used entries; a hit
  marks its entries used in one small write, and nothing is ever fsynced.
* Entries start with the SHA-256 of the rest, so a corrupt or truncated entry
  is dropped and recompiled, never loaded; what an entry must match beyond that
  (its key, the model's signature and constants, the symbols its objects call)
  is checked by `tlir.compiler.cache_entry`. A database SQLite finds corrupt is
  replaced by an empty one (one warning line).

Keys are SHA-256 digests of a kernel's canonical text (or a model's structure)
together with `environment()`: tlir's code, llvmlite and LLVM versions, the
target triple and CPU features, the back end and the optimisation level.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import os
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

DEFAULT_MAX_MB = 1024
DATABASE = "cache.sqlite3"
FORMAT = 2
"""The database's `user_version`: a database of another format is emptied."""

_CHECKSUM_BYTES = 32
_LARGEST_CAP = 1 << 62
"""A cap SQLite can compare with (its integers are 64-bit); larger ones mean no cap."""
_CORRUPT = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}

T = TypeVar("T")


def _warn(message: str) -> None:
    """The cache's one printer: a single line on stderr, whatever the message holds
    (call sites quote untrusted values with `ascii()`; `printable` is the last guard)."""
    from tlir.diagnostics import printable

    print(printable(f"tlir: warning: {message}"), file=sys.stderr)


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
            stat_ = path.stat()
            digest.update(f"{path.relative_to(root)}:{stat_.st_size}:{stat_.st_mtime_ns};".encode())
    return digest.hexdigest()


def environment(backend: str, opt_level: int) -> str:
    """Everything besides the IR that determines generated code."""
    from tlir.compiler import jit
    from tlir.passes.contraction_kernels import host_target
    from tlir.passes.directed_steps import host_has_embedded_rounding

    # The code fingerprint identifies tlir's version (and any local edit) without
    # importlib.metadata, which costs a cache hit 0.2 s of imports.
    parts = [f"tlir {code_fingerprint()}", jit.host().describe()]
    parts.append(f"contraction target {host_target()}")
    parts.append(f"embedded rounding {host_has_embedded_rounding()}")
    parts.append(f"backend {backend}; -O{opt_level}")
    if backend == "mlir":
        from tlir.compiler.backend import mlir

        parts.append(f"mlir-opt {mlir.find_tool('mlir-opt')}")
    return "\n".join(parts)


def digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


# --- trust ----------------------------------------------------------------------


class Untrusted(Exception):
    """A cache location someone other than this user could write."""


def _check_private(path: str, info: os.stat_result, what: str) -> None:
    """`path` (of `info`) must be this user's and writable by no one else."""
    if info.st_uid != os.geteuid():
        raise Untrusted(f"{what} {ascii(path)} is owned by uid {info.st_uid}, not by this user")
    if info.st_mode & 0o022:
        mode = oct(stat.S_IMODE(info.st_mode))
        raise Untrusted(f"{what} {ascii(path)} is writable by group or others (mode {mode})")


def _check_ancestors(directory: str) -> None:
    """No one else may rename the cache directory away and put theirs in its place:
    every directory above it is this user's or root's, and writable by no one
    else unless sticky (as /tmp is)."""
    for parent in Path(directory).parents:
        if not os.path.lexists(parent):  # not made yet (`private_directory` makes it)
            continue
        info = os.stat(parent)
        if info.st_uid not in (os.geteuid(), 0):
            raise Untrusted(f"{ascii(str(parent))} above the cache is owned by uid {info.st_uid}")
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            mode = oct(stat.S_IMODE(info.st_mode))
            raise Untrusted(f"{ascii(str(parent))} above the cache is writable by others ({mode})")


def private_directory(configured: str) -> str:
    """The cache directory (created 0700 if missing), resolved, after the checks
    above; `Untrusted` or `OSError` otherwise."""
    directory = os.path.realpath(configured)
    if not os.path.isdir(directory):
        _check_ancestors(directory)  # nothing is made under a directory others may write
        os.makedirs(directory, mode=0o700, exist_ok=True)
        directory = os.path.realpath(directory)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{ascii(directory)} is not a directory")
    _check_private(directory, info, "the cache directory")
    _check_ancestors(directory)
    return directory


def _private_database(path: str) -> None:
    """The database (created 0600 if missing) and its WAL files are regular files
    of this user's that no one else may write."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(descriptor)
    except FileExistsError:
        pass
    for name in (path, path + "-wal", path + "-shm"):
        try:
            info = os.lstat(name)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(info.st_mode):
            raise Untrusted(f"the cache database {ascii(name)} is not a regular file")
        _check_private(name, info, "the cache database")


# --- the store ------------------------------------------------------------------


class CompileCache:
    """Checksummed byte entries in a size-capped, LRU-evicting SQLite database."""

    def __init__(self, directory: str, max_bytes: int):
        self.directory = directory
        self.path = os.path.join(directory, DATABASE)
        self.max_bytes = max_bytes
        self.failed = False
        self._lock = threading.Lock()  # one connection, any thread of the process
        self.db = self._open()

    def get(self, key: str) -> bytes | None:
        return self.get_many([key])[key]

    def get_many(self, keys: list[str]) -> dict[str, bytes | None]:
        """Each key's payload, or None (missing, or dropped as corrupt): one
        query, and one write to mark the entries used (for eviction)."""
        marks = ",".join("?" * len(keys))
        query = f"SELECT key, value FROM blobs WHERE key IN ({marks})"
        rows = self._run(lambda db: db.execute(query, keys), every=True) or []
        found: dict[str, bytes | None] = dict.fromkeys(keys)
        for key, value in rows:
            found[key] = self._payload(key, value)
        used = [key for key, payload in found.items() if payload is not None]
        if used:
            self._touch(used)
        return found

    def read(self, key: str, reader: Callable[[bytes], T]) -> T | None:
        """What `reader` makes of the entry's payload, or None: no entry, or one
        `reader` refuses (raises ValueError: malformed, or made for something
        else), which is discarded so that the caller compiles it again."""
        return self.read_many({key: reader})[key]

    def read_many(self, readers: dict[str, Callable[[bytes], T]]) -> dict[str, T | None]:
        """`read` of each key with its reader, in one query."""
        found: dict[str, T | None] = {}
        for key, entry in self.get_many(list(readers)).items():
            found[key] = None
            if entry is not None:
                try:
                    found[key] = readers[key](entry)
                except ValueError:
                    self.discard(key)
        return found

    def _payload(self, key: str, value: object) -> bytes | None:
        """The payload of a stored value whose checksum holds; else the entry is dropped."""
        if type(value) is not bytes or len(value) < _CHECKSUM_BYTES:
            self.discard(key)
            return None
        checksum, payload = value[:_CHECKSUM_BYTES], value[_CHECKSUM_BYTES:]
        if hashlib.sha256(payload).digest() != checksum:
            self.discard(key)
            return None
        return payload

    def put(self, key: str, payload: bytes) -> None:
        value = hashlib.sha256(payload).digest() + payload
        evicted = False

        def write(db: sqlite3.Connection) -> None:
            nonlocal evicted
            db.execute("INSERT OR REPLACE INTO blobs (key, value) VALUES (?, ?)", (key, value))
            db.execute(
                "INSERT OR REPLACE INTO entries (key, size, used) VALUES (?, ?, ?)",
                (key, len(value), time.time_ns()),
            )
            # Keep the most recently used entries whose sizes add up to the cap.
            victims = db.execute(
                "SELECT key FROM (SELECT key, SUM(size) OVER (ORDER BY used DESC, rowid DESC) "
                "AS kept FROM entries) WHERE kept > ?",
                (self.max_bytes,),
            ).fetchall()
            _delete(db, victims)
            evicted = bool(victims)

        self._transaction(write)
        if evicted:
            self._vacuum()

    def discard(self, key: str) -> None:
        self._transaction(lambda db: _delete(db, [(key,)]))

    def keys(self) -> list[str]:
        rows = self._run(lambda db: db.execute("SELECT key FROM entries"), every=True)
        return [key for (key,) in rows or []]

    def volume(self) -> int:
        """The bytes of all entries (what the cap counts)."""
        row = self._run(lambda db: db.execute("SELECT COALESCE(SUM(size), 0) FROM entries"))
        return row[0] if row else 0

    # -- connection ----------------------------------------------------------------

    def _open(self, retry: bool = True) -> sqlite3.Connection:
        _private_database(self.path)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            # No fsync, ever (a hit marks its entries used: a write). A process
            # that dies loses nothing (WAL); a machine that crashes may lose recent
            # entries or tear the file, which then reads as corrupt (and is
            # replaced) or as entries whose checksums fail (misses): a cache.
            db.execute("PRAGMA synchronous = OFF")
            if db.execute("PRAGMA user_version").fetchone()[0] != FORMAT:
                _create_schema(db)
        except sqlite3.DatabaseError as err:
            db.close()
            if not retry or not _corrupt(err):
                raise
            _warn(f"compile cache reset: {ascii(self.path)}: {err}")
            self._remove_database()
            return self._open(retry=False)
        return db

    def _remove_database(self) -> None:
        for name in (self.path, self.path + "-wal", self.path + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)

    def _run(self, query, every: bool = False):
        """A read: its first row (or all rows), or None when the store fails."""
        if self.failed:
            return None
        try:
            with self._lock:
                cursor = query(self.db)
                return cursor.fetchall() if every else cursor.fetchone()
        except sqlite3.Error as err:
            self._fail(err)
            return None

    def _transaction(self, write) -> None:
        if self.failed:
            return
        try:
            with self._lock:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    write(self.db)
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")
        except sqlite3.Error as err:
            self._fail(err)

    def _vacuum(self) -> None:
        """The pages of evicted entries back to the file system, so that the file
        follows a lowered cap. (`executescript` runs the pragma to its end: one
        step of `execute` frees one page.) Best effort: later entries reuse them."""
        with contextlib.suppress(sqlite3.Error), self._lock:
            self.db.executescript("PRAGMA incremental_vacuum;")

    def _touch(self, keys: list[str]) -> None:
        """Mark entries used (for eviction). Best effort: a busy database only
        leaves them a little older."""
        marks = ",".join("?" * len(keys))
        with contextlib.suppress(sqlite3.Error), self._lock:
            self.db.execute(
                f"UPDATE entries SET used = ? WHERE key IN ({marks})", (time.time_ns(), *keys)
            )

    def _fail(self, err: sqlite3.Error) -> None:
        """A database SQLite finds corrupt is replaced by an empty one; a store
        that fails otherwise is a miss for the rest of the process."""
        if _corrupt(err):
            _warn(f"compile cache reset: {ascii(self.path)}: {err}")
            self.db.close()
            try:
                self._remove_database()
                self.db = self._open(retry=False)
                return
            except (OSError, Untrusted, sqlite3.Error) as again:
                err = again
        self.failed = True
        _warn(f"compile cache disabled: {ascii(self.path)}: {err}")


def _delete(db: sqlite3.Connection, keys: list[tuple[str]]) -> None:
    db.executemany("DELETE FROM blobs WHERE key = ?", keys)
    db.executemany("DELETE FROM entries WHERE key = ?", keys)


def _corrupt(err: sqlite3.Error) -> bool:
    """Whether SQLite found the file damaged or not a database (any extended code)."""
    return (getattr(err, "sqlite_errorcode", 0) & 0xFF) in _CORRUPT


def _create_schema(db: sqlite3.Connection) -> None:
    """A new (or foreign-format) database becomes an empty store of this format."""
    if db.execute("PRAGMA page_count").fetchone()[0] == 0:
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # only before the first table
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != FORMAT:  # not made meanwhile
            db.execute("DROP TABLE IF EXISTS entries")
            db.execute("DROP TABLE IF EXISTS blobs")
            # An entry's size and last use apart from its bytes: marking it used
            # rewrites a small row, not the object (SQLite rewrites whole rows).
            db.execute(
                "CREATE TABLE entries (key TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                "used INTEGER NOT NULL)"
            )
            db.execute("CREATE TABLE blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            db.execute("CREATE INDEX entries_used ON entries (used)")
            db.execute(f"PRAGMA user_version = {FORMAT}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# --- configuration ---------------------------------------------------------------


def cache_directory() -> str | None:
    """The cache directory, or None when the environment turns the cache off."""
    configured = os.environ.get("TLIR_CACHE_DIR")
    if configured is not None:
        return configured or None
    import platformdirs

    return platformdirs.user_cache_dir("tlir")


@functools.cache
def _max_bytes(value: str) -> int:
    """`TLIR_CACHE_MAX_MB` in bytes. The cache never fails a compile, so a value
    that is not a finite number of megabytes ≥ 0 costs a warning (once) and the
    default."""
    if not value.strip():
        return DEFAULT_MAX_MB << 20
    try:
        megabytes = float(value)
    except ValueError:
        megabytes = math.nan
    if not math.isfinite(megabytes) or megabytes < 0:
        _warn(
            f"TLIR_CACHE_MAX_MB must be a finite number of megabytes >= 0, got {ascii(value)}; "
            f"using {DEFAULT_MAX_MB}"
        )
        return DEFAULT_MAX_MB << 20
    return min(int(megabytes * (1 << 20)), _LARGEST_CAP)


_OPEN: dict[tuple[str, int], CompileCache | None] = {}


def open_cache(enabled: bool = True) -> CompileCache | None:
    """The process's cache for the configured directory (None when off, unusable
    or untrusted: then one warning line, once)."""
    if not enabled:
        return None
    directory = cache_directory()
    if directory is None:
        return None
    key = (os.path.abspath(directory), _max_bytes(os.environ.get("TLIR_CACHE_MAX_MB", "")))
    if key not in _OPEN:
        try:
            _OPEN[key] = CompileCache(private_directory(key[0]), key[1])
        except Untrusted as err:
            _warn(f"compile cache disabled: {err}; compiling without it")
            _OPEN[key] = None
        except (OSError, sqlite3.Error) as err:  # unwritable, not a directory, ...
            reason = getattr(err, "strerror", None) or err
            _warn(f"compile cache disabled: {ascii(directory)}: {reason}")
            _OPEN[key] = None
    return _OPEN[key]
