"""A seeded cosmic-ray sample over line ranges of one module, each mutant with its own numba cache.

The working tree's ``relmc/``, ``tests/`` and ``pyproject.toml`` are copied to a temporary
folder; ``cosmic-ray init`` lists the module's mutants there (``--module``: its path, for which
the runner writes a cosmic-ray 8.7 toml with every operator; or ``--config``: such a toml,
whose ``module-path`` is the module: the same mutant list for the same module); those starting
on the given lines, ordered by (row, column, operator, occurrence), are sampled with
``random.Random(SEED)`` (less the operators ``--exclude-ops`` names: e.g. the bitwise ones,
which numba refuses on floats, a kill that tests nothing). Each sampled mutant is applied alone
(``cosmic-ray apply``, the module restored first) and judged by ``--tests`` as
:mod:`mutation_hand_run` judges its mutants (``run_tests``: ``pytest -x``, that folder first on
``PYTHONPATH``, a numba cache of its own, removed after): with one cache shared across mutants,
a mutant whose source stamp matched an entry compiled for the one before could run that code
and pass. Appends one JSON line a mutant to ``--out``: the seed, the mutant's place in the
sample, the operator, occurrence, line and function, the changed lines, ``rc`` (0 survived; 1
or 2 killed, with the first failed tests) or ``"timeout"``, and the seconds taken. Mutants
already in ``--out`` are skipped, so a run can be resumed.

``--shared-cache``: one numba cache for every mutant, kept between them, for a module with no
jitted code (e.g. ``relmc/optimize.py``, whose tests run the kernels): the kernels' source is
then the same for every mutant, so their cached machine code is too, and each mutant's tests
no longer compile them afresh (minutes each). Refused for a module that mentions ``jit``.

Run: ``python benchmarks/mutation_fresh_run.py --module relmc/sim/_kernels.py
--lines 3364-3742 --sample 28 --exclude-ops "Bit|Shift" --tests tests/test_diurnal_block.py
tests/test_diurnal_path.py tests/test_mutation_blocks.py --out
benchmarks/mutation_diurnal_body_results.jsonl`` (~2.5 min a mutant that compiles, with
``-n 2``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from mutation_hand_run import copy_tree, run_tests


def line_range(text: str) -> tuple[int, int]:
    """``A-B`` (first and last line, 1-based, A <= B) as a pair."""
    try:
        a, b = (int(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--lines must be A-B (integers), got {text!r}") from None
    if not 1 <= a <= b:
        raise argparse.ArgumentTypeError(f"--lines needs 1 <= A <= B, got {text!r}")
    return a, b


def sample(
    db: Path, ranges: list[tuple[int, int]], n: int, seed: int, exclude: str = ""
) -> list[tuple]:
    """The mutants starting on ``ranges``' lines, in a fixed order, ``n`` of them by ``seed``.

    Operators whose name matches the regular expression ``exclude`` are left out first.
    """
    con = sqlite3.connect(db)
    rows = con.execute(
        "select module_path, operator_name, occurrence, start_pos_row, start_pos_col,"
        " definition_name from mutation_specs"
    ).fetchall()
    con.close()
    rows = [r for r in rows if any(a <= r[3] <= b for a, b in ranges)]
    if exclude:
        rows = [r for r in rows if not re.search(exclude, r[1])]
    rows.sort(key=lambda r: (r[3], r[4], r[1], r[2]))
    return random.Random(seed).sample(rows, min(n, len(rows)))


def cosmic_ray_toml(module: str, tests: list[str], timeout: int) -> str:
    """A cosmic-ray 8.7 config for ``module``: every operator, the local distributor.

    Only ``init`` and ``apply`` read it; its ``test-command`` records the tests the runner
    runs itself (with a numba cache a mutant, :func:`mutation_hand_run.run_tests`).
    """
    return (
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        f"timeout = {float(timeout)}\n"
        "excluded-modules = []\n"
        f'test-command = "python -m pytest -x -q -n 2 -p no:cacheprovider {" ".join(tests)}"\n'
        "\n[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--module", help="the module to mutate, relative to the repository root")
    where.add_argument("--config", type=Path, help="a cosmic-ray 8.7 toml naming the module")
    ap.add_argument("--lines", required=True, action="append", type=line_range)
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--exclude-ops", default="", help="regular expression: operators left out of the sample"
    )
    ap.add_argument("--tests", nargs="+", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--timeout", type=int, default=1500, help="seconds a mutant's tests may take")
    ap.add_argument(
        "--shared-cache", action="store_true",
        help="one numba cache kept across mutants (only for a module with no jitted code)",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.sample < 1:
        ap.error(f"--sample must be >= 1, got {args.sample}")
    if args.config is not None:
        config = args.config.read_text()
        module = tomllib.loads(config)["cosmic-ray"]["module-path"]
    else:
        module = args.module
        config = cosmic_ray_toml(module, args.tests, args.timeout)
    # a jitted function (``@jit``, numba): not "jitter", which names overhead fields
    if args.shared_cache and re.search(r"\bjit\b|numba", Path(module).read_text()):
        ap.error(f"--shared-cache: {module} mentions jit; its mutants need a cache each")
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            rec = json.loads(line)
            done.add((rec["op"], rec["occ"]))
    work = Path(tempfile.mkdtemp(prefix="relmc_crfresh_"))
    try:
        copy_tree(work)
        (work / "cr.toml").write_text(config)
        subprocess.run(
            ["cosmic-ray", "init", "cr.toml", "s.sqlite"], cwd=work, check=True, capture_output=True
        )
        picked = sample(work / "s.sqlite", args.lines, args.sample, args.seed, args.exclude_ops)
        orig = (work / module).read_text()
        for k, (path, op, occ, row, col, name) in enumerate(picked):
            if (op, occ) in done:
                continue
            (work / module).write_text(orig)
            subprocess.run(
                ["cosmic-ray", "apply", path, op, str(occ)], cwd=work, check=True,
                capture_output=True,
            )  # fmt: skip
            diff = difflib.unified_diff(
                orig.splitlines(), (work / module).read_text().splitlines(), n=0, lineterm=""
            )
            changed = [ln for ln in diff if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
            t0 = time.time()
            cache = work / ("_nc" if args.shared_cache else f"_nc{k}")
            rc, failed = run_tests(work, args.tests, cache, args.timeout, args.shared_cache)
            rec = dict(
                seed=args.seed, k=k, op=op, occ=occ, line=row, col=col, function=name,
                changed=changed, rc=rc, failed=failed, s=round(time.time() - t0, 1),
            )  # fmt: skip
            with args.out.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
