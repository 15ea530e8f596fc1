"""Hand mutation of the kernel: each mutant one string replaced in ``relmc/sim/_kernels.py``.

For changes too small or too structural for cosmic-ray's operators (a row order, an argument
layout, a split function). The working tree's ``relmc/``, ``tests/`` and ``pyproject.toml``
are copied to a temporary folder; for each mutant the copy's kernel gets the one replacement,
and the tests run there (``pytest -x``) with that folder first on ``PYTHONPATH`` and a numba
cache of the mutant's own (with a shared cache a mutant can run code compiled for the one
before it and pass). Prints one JSON line a mutant: killed (``rc`` 1 or 2, the first failed
tests), survived (``rc`` 0) or a timeout. ``MUTANTS`` holds the last stop's set
(benchmarks/README.md, "Mutation testing: a block's arguments as rows").

Run: ``python benchmarks/mutation_hand_run.py [INDEX ...]`` (all by default; ~2.5 min a
mutant on 2 cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "relmc/sim/_kernels.py"
TESTS = ["tests/test_diurnal_block.py", "tests/test_diurnal_path.py"]
ROWS = "    return pts[0, :n], pts[1, :n], pts[2, :n], pts[3, :n], pts[4, :n], pts[5, :n]"
FIRST = (
    "        if (_gap_bound(buf, j, j + need, 1.0) + slack) * inv_l * (1.0 + _BOUND_RTOL) > lim:"
)
MARKED = "    buf, gf, xa, okf, sa, ca = _point_rows(pts)\n"
TABLES = "    return crs[0], crs[1], crs[2]\n"
SHARED = "    buf, gf, xa, okf, _, _ = _point_rows(pts)\n    cost, rot_c, rot_s = _cost_rows(crs)\n"
MUTANTS = [
    (
        "point rows: gf and xa swapped",
        ROWS,
        ROWS.replace("pts[1, :n], pts[2, :n]", "pts[2, :n], pts[1, :n]"),
    ),
    (
        "point rows: the padding in the rows",
        "    n = pts.shape[1] - _PTS_PAD\n",
        "    n = pts.shape[1]\n",
    ),
    ("block count: first test at equality", FIRST, FIRST.replace(") > ", ") >= ")),
    ("block count: first test one gap short", FIRST, FIRST.replace("j + need,", "j + need - 1,")),
    (
        "block count: room one short of need",
        "    if room < need or room <= 0:\n        return 0\n    if need > 0:",
        "    if room < need - 1 or room <= 0:\n        return 0\n    if need > 0:",
    ),
    (
        "cost rows: rot_c and rot_s swapped",
        TABLES,
        TABLES.replace("crs[1], crs[2]", "crs[2], crs[1]"),
    ),
    ("marked: sines for cosines", MARKED, MARKED.replace("sa, ca =", "ca, sa =")),
    (
        "shared: phase turn sign",
        SHARED,
        SHARED + "    rot_s = -rot_s\n",
    ),
]


def copy_tree(work: Path) -> None:
    """Copy the working tree's ``relmc/``, ``tests/`` and ``pyproject.toml`` into ``work``."""
    for d in ("relmc", "tests"):
        shutil.copytree(ROOT / d, work / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", work / "pyproject.toml")


def run_tests(
    work: Path, tests: list[str], cache: Path, timeout: int, keep_cache: bool = False
) -> tuple[int | str, list]:
    """Run ``tests`` in ``work`` (``pytest -x -n 2``, ``work`` first on ``PYTHONPATH``) with the
    numba cache ``cache``, removed after unless ``keep_cache``: ``(rc, the first failed
    tests)``, ``rc`` "timeout" past ``timeout`` seconds."""
    env = dict(os.environ, PYTHONPATH=str(work), NUMBA_CACHE_DIR=str(cache))
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "2", "-p", "no:cacheprovider"]
    try:
        r = subprocess.run(
            [*cmd, *tests], cwd=work, env=env, capture_output=True, text=True, timeout=timeout
        )
        rc, failed = r.returncode, [ln for ln in r.stdout.splitlines() if ln.startswith("FAILED")]
    except subprocess.TimeoutExpired:
        rc, failed = "timeout", []
    if not keep_cache:
        shutil.rmtree(cache, ignore_errors=True)
    return rc, failed[:3]


def main(argv: list[str]) -> int:
    which = [int(a) for a in argv] or range(len(MUTANTS))
    orig = (ROOT / KERNEL).read_text()
    for m in which:
        name, old, _ = MUTANTS[m]
        if orig.count(old) != 1:
            raise SystemExit(f"mutant {m} ({name}): its text occurs {orig.count(old)} times")
    work = Path(tempfile.mkdtemp(prefix="relmc_mut_"))
    copy_tree(work)
    for m in which:
        name, old, new = MUTANTS[m]
        (work / KERNEL).write_text(orig.replace(old, new))
        rc, failed = run_tests(work, TESTS, work / f"_nc{m}", 1500)
        out = dict(m=m, name=name, rc=rc, failed=failed)
        print(json.dumps(out), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
