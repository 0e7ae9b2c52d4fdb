"""The suite's own machinery under pytest-xdist (test/python/conftest.py): a
test marked `alone` runs while no other worker runs a test, and the workers
of a run share one compile cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent

pytest.importorskip("xdist")

ALONE = textwrap.dedent(
    """
    import json, os, time
    import pytest

    @pytest.mark.alone
    def test_alone():
        start = time.monotonic()
        time.sleep(1.0)
        record("alone", start)
        open("alone-done", "w").close()

    def record(name, start):
        with open("intervals", "a") as out:
            out.write(json.dumps([name, os.environ["PYTEST_XDIST_WORKER"], start,
                                  time.monotonic(), os.environ["TLIR_CACHE_DIR"]]) + "\\n")
    """
)

# Short tests on the other worker until the `alone` test is done (at most 30 s
# of them, should its worker start late).
OTHERS = textwrap.dedent(
    """
    import os, time
    import pytest
    from test_a import record

    @pytest.mark.parametrize("i", range(600))
    def test_other(i):
        start = time.monotonic()
        if not os.path.exists("alone-done"):
            time.sleep(0.05)
        record("other", start)
    """
)


def test_an_alone_test_overlaps_no_other_test(tmp_path):
    (tmp_path / "test_a.py").write_text(ALONE)
    (tmp_path / "test_b.py").write_text(OTHERS)
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    # (not this run's PYTEST_XDIST_WORKER and the like, should it have workers)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(tmp_path)])
    # --basetemp of its own: a numbered one would count towards (and could
    # remove) this run's.
    args = ["-q", "-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider"]
    args += ["--basetemp", str(tmp_path / "basetemp"), "--rootdir", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *args, str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [json.loads(line) for line in (tmp_path / "intervals").read_text().splitlines()]
    ((_, alone_worker, start, end, alone_cache),) = [r for r in rows if r[0] == "alone"]
    others = [r for r in rows if r[0] == "other"]
    assert len(others) == 600 and {r[1] for r in others} == {"gw0", "gw1"} - {alone_worker}
    assert [r for r in others if r[2] < end and r[3] > start] == []
    # one compile cache for the run, beside the workers' base directories
    assert {r[4] for r in rows} == {alone_cache} == {str(tmp_path / "basetemp" / "tlir-cache")}
