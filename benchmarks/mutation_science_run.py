"""Seeded cosmic-ray sample over modules no earlier sample covered (MUTATION_SCIENCE.md).

    git worktree add --detach /tmp/wt_m59 HEAD
    python benchmarks/mutation_science_run.py 12      # 12 mutants of each module; ~35 min
    python benchmarks/mutation_science_run.py --wide  # the survivors against wider test files

cosmic-ray's ``init`` runs once per module (the config is mutation_modules_cr.toml with its
module path replaced; the databases go to ``DIR``). Each mutant is applied alone in the
worktree and judged by the module's own test files (``MODS``); ``--wide`` reruns the
survivors against ``WIDE``. A mutant whose tests run past 900 s (a hang) counts as killed.
"""

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WT = "/tmp/wt_m59"
DIR = Path("/tmp/s59/mut")
MODS = {
    "relmc/projection.py": ["tests/test_projection.py"],
    "relmc/optimize.py": ["tests/test_projection.py"],
    "relmc/comparison.py": ["tests/test_compare.py"],
    "relmc/overheads.py": ["tests/test_overheads.py", "tests/test_overheads_api.py"],
}
WIDE = [
    "tests/test_projection.py", "tests/test_compare.py", "tests/test_overheads.py",
    "tests/test_overheads_api.py", "tests/test_cli.py", "tests/test_cli_users.py",
    "tests/test_faults.py", "tests/test_physics.py", "tests/test_input_bounds.py",
    "tests/test_examples.py",
]  # fmt: skip


def mutants(path: str) -> list[tuple]:
    """Every mutant cosmic-ray makes of ``path``: (path, operator, occurrence, line)."""
    db = DIR / f"full_{path.replace('/', '_')}.sqlite"
    if not db.exists():
        toml = (ROOT / "benchmarks" / "mutation_modules_cr.toml").read_text()
        (DIR / "cr.toml").write_text(toml.replace("relmc/rates.py", path))
        subprocess.run(["cosmic-ray", "init", str(DIR / "cr.toml"), str(db)], cwd=ROOT, check=True)
    con = sqlite3.connect(db)
    return con.execute(
        "select module_path, operator_name, occurrence, start_pos_row from mutation_specs"
    ).fetchall()


def run_mutant(path: str, op: str, occ: int, tests: list[str]):
    """Apply one mutant in the worktree and run ``tests``: (changed lines, rc, s, tail)."""
    subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)
    subprocess.run(
        ["cosmic-ray", "apply", path, op, str(occ)], cwd=WT, check=True, capture_output=True
    )
    diff = subprocess.run(["git", "diff", "-U0", path], cwd=WT, capture_output=True, text=True)
    changed = [
        line
        for line in diff.stdout.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    env = dict(os.environ, PYTHONPATH=".", NUMBA_CACHE_DIR=WT + "_nc")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "-p", "no:cacheprovider", *tests]
    t0 = time.time()
    r = subprocess.run(["timeout", "900", *cmd], cwd=WT, env=env, capture_output=True, text=True)
    return changed, r.returncode, round(time.time() - t0, 1), r.stdout[-300:]


def main() -> None:
    DIR.mkdir(parents=True, exist_ok=True)
    if sys.argv[1:] == ["--wide"]:
        res = [json.loads(line) for line in (DIR / "results2.jsonl").open()]
        with (DIR / "wide2.jsonl").open("w") as f:
            for r in res:
                if r["rc"] == 0:
                    _, rc, dt, tail = run_mutant(r["path"], r["op"], r["occ"], WIDE)
                    f.write(json.dumps(dict(r, wide_rc=rc, wide_dt=dt, wide_tail=tail)) + "\n")
                    f.flush()
        return
    n = int(sys.argv[1])
    rng = random.Random(20261204)
    sample = []
    for path, tests in MODS.items():
        own = mutants(path)
        print(path, "mutants:", len(own), flush=True)
        sample += [(m, tests) for m in rng.sample(own, min(n, len(own)))]
    rng.shuffle(sample)
    with (DIR / "results2.jsonl").open("w") as f:
        for (path, op, occ, row), tests in sample:
            changed, rc, dt, tail = run_mutant(path, op, occ, tests)
            rec = dict(path=path, op=op, occ=occ, row=row, changed=changed, rc=rc, dt=dt, tail=tail)
            f.write(json.dumps(rec) + "\n")
            f.flush()
    subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)


if __name__ == "__main__":
    main()
