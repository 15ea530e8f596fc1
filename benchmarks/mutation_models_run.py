"""A seeded, stratified sample of cosmic-ray mutants over relmc/models (MUTATION_MODELS.md).

    cosmic-ray init benchmarks/mutation_models_cr.toml /tmp/s55/mut_models.sqlite
    git worktree add --detach /tmp/wt_m1 HEAD && git worktree add --detach /tmp/wt_m2 HEAD
    python benchmarks/mutation_models_run.py 10      # mutants per module; ~1 h on 2 cores

Each mutant is applied in a worktree of its own worker (two workers) and run in two stages:
the module's own tests, then (if none failed) every model test file except the two tests
that run the simulation kernel (a worktree would compile it afresh). Results, one JSON record
a mutant, to /tmp/s55/models_results.json.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time

DB = "/tmp/s55/mut_models.sqlite"
OUT = "/tmp/s55/models_results.json"
SEED = 20261203
M = "tests/test_models.py"
ALL = [
    M,
    "tests/test_scaling.py",
    "tests/test_models_events.py",
    "tests/test_models_sbc.py",
    "tests/test_models_fleets_grid.py",
    "tests/test_models_fleets_weights.py",
]
NOT_KERNEL = "not project_accepts_a_scaling_fit and not simulate_and_project_accept_the_fit"
COMMON = "conjugate or bad or seed_sequence or short_chains or homogeneous or layout"
STAGE1 = {  # module: (test files, -k expression)
    "conjugate.py": ([M], "conjugate or pumps or seed_sequence or maintenance_rate"),
    "_common.py": ([M, ALL[2]], f"({COMMON}) and not fleets and {NOT_KERNEL}"),
    "hierarchical.py": ([M, ALL[3]], "hierarchical or sbc"),
    "scaling.py": ([ALL[1]], NOT_KERNEL),
    "events.py": ([ALL[2]], NOT_KERNEL),
    "fleets.py": ([M, ALL[4], ALL[5]], "fleets or grid or pinned"),
}


def pytest(wt: str, files: list[str], k: str) -> tuple[int, str]:
    # absolute: a test that runs relmc in a subprocess from another folder imports the mutant
    env = dict(os.environ, PYTHONPATH=wt, NUMBA_CACHE_DIR=wt + "_nc")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "-p", "no:cacheprovider"]
    cmd += ["-p", "no:randomly", *files, "-k", k]
    r = subprocess.run(["timeout", "900", *cmd], cwd=wt, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout[-600:]


def one(wid: int, spec: tuple[str, str, int, int]) -> dict:
    path, op, occ, row = spec
    wt = f"/tmp/wt_m{wid}"
    subprocess.run(["git", "checkout", "-q", "relmc/models"], cwd=wt, check=True)
    apply = ["cosmic-ray", "apply", path, op, str(occ)]
    subprocess.run(apply, cwd=wt, check=True, capture_output=True)
    diff = subprocess.run(["git", "diff", "-U0", path], cwd=wt, capture_output=True, text=True)
    changed = [
        line
        for line in diff.stdout.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    t0 = time.time()
    verdict, tail = None, ""
    for stage, (files, k) in (("s1", STAGE1[os.path.basename(path)]), ("s2", (ALL, NOT_KERNEL))):
        rc, tail = pytest(wt, files, k)
        if rc != 0:
            verdict = f"killed ({stage}, rc {rc})"
            break
    subprocess.run(["git", "checkout", "-q", "relmc/models"], cwd=wt, check=True)
    return {
        "path": path,
        "op": op,
        "occ": occ,
        "line": row,
        "verdict": verdict or "survived",
        "secs": round(time.time() - t0),
        "change": changed,
        "tail": "" if verdict else tail,
    }


def main(per_module: int) -> None:
    query = "select module_path, operator_name, occurrence, start_pos_row from mutation_specs"
    rows = sqlite3.connect(DB).execute(query + " order by rowid").fetchall()
    rng = random.Random(SEED)
    sample = []
    for mod in sorted({r[0] for r in rows}):
        sample += rng.sample([r for r in rows if r[0] == mod], per_module)
    rng.shuffle(sample)
    print("sampled", len(sample), "of", len(rows), flush=True)
    out: list[dict] = []
    lock = threading.Lock()

    def worker(w: int) -> None:
        for spec in sample[w - 1 :: 2]:
            rec = one(w, spec)
            with lock:
                out.append(rec)
                print(json.dumps(rec), flush=True)
                with open(OUT, "w") as fh:
                    json.dump(out, fh, indent=1)

    threads = [threading.Thread(target=worker, args=(w,)) for w in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main(int(sys.argv[1]))
