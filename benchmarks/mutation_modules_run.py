"""Seeded cosmic-ray mutants over modules no earlier sample covered (MUTATION_MODULES.md).

    for m in rates analytic summary; do   # module-path in the toml set to relmc/$m.py each time
        cosmic-ray init benchmarks/mutation_modules_cr.toml /tmp/s57/mut/$m.sqlite
    done
    git worktree add --detach /tmp/wt_m HEAD
    python benchmarks/mutation_modules_run.py 30 20 15   # mutants from each module; ~12 min
    python benchmarks/mutation_modules_run.py --wide     # the survivors, wider tests; ~40 min

Each mutant is applied alone in the worktree and judged by the module's own test file
(``tests/test_<module>.py``); ``--wide`` reruns the survivors against every test file that
names the module (the first stage's files are the quick check, not the whole suite).
"""

import json
import os
import random
import sqlite3
import subprocess
import sys
import time

WT = "/tmp/wt_m"
DIR = "/tmp/s57/mut"
MODULES = ("rates", "analytic", "summary")
WIDE = {
    "rates": [
        "tests/test_rates.py", "tests/test_simulate.py", "tests/test_projection.py",
        "tests/test_scaling.py", "tests/test_physics.py", "tests/test_profiles_api.py",
        "tests/test_overheads_api.py", "tests/test_nodes.py", "tests/test_scenario.py",
    ],
    "analytic": [
        "tests/test_analytic.py", "tests/test_kernel_vs_reference.py", "tests/test_projection.py",
    ],
    "summary": [
        "tests/test_summary.py", "tests/test_simulate.py", "tests/test_precision.py",
        "tests/test_compare.py", "tests/test_sweep.py",
    ],
}  # fmt: skip


def run_mutant(path, op, occ, tests, wt=WT):
    """Apply one mutant in worktree ``wt`` and run ``tests``: (changed lines, rc, s, tail)."""
    subprocess.run(["git", "checkout", "-q", "relmc"], cwd=wt, check=True)
    subprocess.run(
        ["cosmic-ray", "apply", path, op, str(occ)], cwd=wt, check=True, capture_output=True
    )
    diff = subprocess.run(["git", "diff", "-U0", path], cwd=wt, capture_output=True, text=True)
    changed = [
        line
        for line in diff.stdout.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    # absolute: a test that runs relmc in a subprocess from another folder imports the mutant
    env = dict(os.environ, PYTHONPATH=wt, NUMBA_CACHE_DIR=wt + "_nc")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "-p", "no:cacheprovider", *tests]
    t0 = time.time()
    r = subprocess.run(["timeout", "900", *cmd], cwd=wt, env=env, capture_output=True, text=True)
    return changed, r.returncode, round(time.time() - t0, 1), r.stdout[-300:]


def main():
    if sys.argv[1:] == ["--wide"]:
        recs = [json.loads(line) for line in open(f"{DIR}/results.jsonl")]
        out = open(f"{DIR}/wide.jsonl", "a")
        for rec in recs:
            if rec["rc"] != 0:
                continue
            module = os.path.basename(rec["path"])[:-3]
            changed, rc, s, tail = run_mutant(rec["path"], rec["op"], rec["occ"], WIDE[module])
            out.write(json.dumps(dict(rec, rc=rc, s=s, tail=tail, wide=True)) + "\n")
            out.flush()
        return
    rnd = random.Random(20261204)
    out = open(f"{DIR}/results.jsonl", "a")
    for module, n in zip(MODULES, map(int, sys.argv[1:]), strict=True):
        con = sqlite3.connect(f"{DIR}/{module}.sqlite")
        rows = con.execute(
            "select module_path, operator_name, occurrence, start_pos_row from mutation_specs"
        ).fetchall()
        print(module, len(rows), "mutants", flush=True)
        for path, op, occ, row in rnd.sample(rows, min(n, len(rows))):
            path = os.path.relpath(path, "/work/main") if path.startswith("/") else path
            changed, rc, s, tail = run_mutant(path, op, occ, [f"tests/test_{module}.py"])
            rec = {"path": path, "op": op, "occ": occ, "line": row, "changed": changed,
                   "rc": rc, "s": s, "tail": tail}  # fmt: skip
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(module, row, op, "killed" if rc else "SURVIVED", s, flush=True)


if __name__ == "__main__":
    main()
