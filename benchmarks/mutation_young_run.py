"""A seeded sample of cosmic-ray mutants over shape_integral's young piece (MUTATION_MODELS.md).

    cosmic-ray init benchmarks/mutation_young_events_cr.toml /tmp/s56/mut/ev.sqlite
    cosmic-ray init benchmarks/mutation_young_models_cr.toml /tmp/s56/mut/mev.sqlite
    git worktree add --detach /tmp/wt_y HEAD
    python benchmarks/mutation_young_run.py 30 20    # mutants from each file; ~15 min, 1 core

Mutants are drawn from the lines of the young piece only (relmc/events.py's power series,
quadrature and their use in ``shape_integral``; the model's PyTensor twin of them; the line
ranges below are those of the commit the sample ran on), applied one at a time in the
worktree, and judged by tests/test_models_events.py's integral, generator and refusal tests.
"""

import json
import os
import random
import sqlite3
import subprocess
import sys
import time

WT = "/tmp/wt_y"
RANGES = {
    "/tmp/s56/mut/ev.sqlite": ("relmc/events.py", 251, 323),
    "/tmp/s56/mut/mev.sqlite": ("relmc/models/events.py", 354, 386),
}
N = {"/tmp/s56/mut/ev.sqlite": int(sys.argv[1]), "/tmp/s56/mut/mev.sqlite": int(sys.argv[2])}
rnd = random.Random(20261203)
specs = []
for db, (path, lo, hi) in RANGES.items():
    con = sqlite3.connect(db)
    rows = con.execute(
        "select module_path, operator_name, occurrence, start_pos_row from mutation_specs "
        "where start_pos_row between ? and ?",
        (lo, hi),
    ).fetchall()
    print(path, len(rows), "mutants in range", flush=True)
    specs += rnd.sample(rows, min(N[db], len(rows)))
out = open("/tmp/s56/mut/results.jsonl", "a")
for path, op, occ, row in specs:
    path = os.path.relpath(path, "/work/main") if path.startswith("/") else path
    subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)
    subprocess.run(
        ["cosmic-ray", "apply", path, op, str(occ)], cwd=WT, check=True, capture_output=True
    )
    diff = subprocess.run(
        ["git", "diff", "-U0", path], cwd=WT, capture_output=True, text=True
    ).stdout
    changed = [
        line
        for line in diff.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    t0 = time.time()
    # absolute: a test that runs relmc in a subprocess from another folder imports the mutant
    env = dict(os.environ, PYTHONPATH=WT, NUMBA_CACHE_DIR=WT + "_nc")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-n0",
        "-p",
        "no:cacheprovider",
        "tests/test_models_events.py",
        "-k",
        "shape_integral or generator_times or bad_terms",
    ]
    r = subprocess.run(["timeout", "600", *cmd], cwd=WT, env=env, capture_output=True, text=True)
    rec = {
        "path": path,
        "op": op,
        "occ": occ,
        "line": row,
        "changed": changed,
        "rc": r.returncode,
        "s": round(time.time() - t0, 1),
        "tail": r.stdout[-300:],
    }
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(
        row,
        op.split("/")[-1],
        "killed" if r.returncode else "SURVIVED",
        rec["s"],
        changed,
        flush=True,
    )
subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)
