"""The seeded cosmic-ray sample of ``benchmarks/MUTATION_RECENT.md``: select, then run.

    git worktree add --detach /tmp/wt_recent e88b7be
    # one config per module (module-path relmc/cluster.py, relmc/errors.py, ...; otherwise
    # benchmarks/mutation_modules_cr.toml), then per module:
    cosmic-ray init CONFIG.toml WORK/<name>.sqlite
    python benchmarks/mutation_recent_run.py sample WORK          # writes WORK/sample.json
    python benchmarks/mutation_recent_run.py run WORK /tmp/wt_recent   # WORK/results.jsonl

``sample``: per module the in-range mutants (the report's table of ranges, line numbers of
e88b7be) ordered by (row, column, operator, occurrence), ``random.Random(2026).sample``.
``run``: round robin over the targets (so a stop leaves each target a prefix of its sample;
the annotation-only mutants last); each mutant applied alone in the worktree with
``cosmic-ray apply``, judged by its target's test commands (``pytest -x``, 600 s each,
one core), the file restored and the worktree checked clean after. Resumable: mutants in
``results.jsonl`` are skipped; a file ``WORK/STOP`` stops it between mutants.
"""

import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time

RANGES = {
    "cluster": ("relmc/cluster.py", [(177, 218)]),
    "errors": ("relmc/errors.py", [(16, 30)]),
    "options": ("relmc/cli/options.py", [(73, 78), (132, 154)]),
    "spec": ("relmc/sweep/spec.py", [(216, 219), (273, 278), (357, 367), (459, 476), (701, 774)]),
    "reference": ("relmc/sim/reference.py", [(373, 403), (426, 453)]),
    "datasets": ("relmc/datasets.py", [(751, 806), (863, 889)]),
    "common": ("relmc/models/_common.py", [(202, 276)]),
    "scenario": ("relmc/scenario.py", [(157, 186), (1563, 1577)]),
}
K = {"cluster": 10, "errors": 10, "options": 10, "spec": 10, "reference": 10,
     "datasets": 6, "common": 5, "scenario": 10}  # fmt: skip
FITS = [
    ["tests/test_datasets.py"],
    ["tests/test_models.py", "-k", "attrs or hand_built or window or exposure"],
    ["tests/test_models_fleets_weights.py"],
]
TESTS = {
    "cluster": [
        ["tests/test_cluster_shape.py", "tests/test_datasets.py"],
        ["tests/test_models_events.py", "-k", "bad or refuse or beyond or largest or attributes"],
    ],
    "errors": [["tests/test_input_bounds.py", "tests/test_cli.py"]],
    "options": [["tests/test_cli.py", "tests/test_cli_users.py", "tests/test_faults.py"]],
    "spec": [["tests/test_sweep.py"]],
    "reference": [["tests/test_profiles.py", "tests/test_profiles_kernel.py"]],
    "datasets": FITS,
    "common": FITS,
    "scenario": [["tests/test_input_bounds.py", "tests/test_scenario.py", "tests/test_sweep.py"]],
}
LAST = {64, 66, 68, 70}  # annotation-only mutants of scenario.py: run after the rest


def sample(work: str, targets: dict | None = None, k: dict | None = None) -> None:
    """Write ``work/sample.json``: the seeded sample of every target (default: this report's)."""
    targets = RANGES if targets is None else targets
    k = K if k is None else k
    out = []
    for name, (path, ranges) in targets.items():
        c = sqlite3.connect(f"{work}/{name}.sqlite")
        cond = "(" + " or ".join(f"start_pos_row between {a} and {b}" for a, b in ranges) + ")"
        rows = c.execute(
            "select job_id, operator_name, occurrence, start_pos_row, start_pos_col, end_pos_row,"
            " end_pos_col, definition_name from mutation_specs where " + cond
            + " order by start_pos_row, start_pos_col, operator_name, occurrence"
        ).fetchall()  # fmt: skip
        picked = random.Random(2026).sample(rows, min(k[name], len(rows)))
        print(name, path, "in range", len(rows))
        for r in picked:
            out.append(
                dict(target=name, path=path, job=r[0][:8], op=r[1], occ=r[2], row=r[3], col=r[4],
                     fn=r[7])
            )  # fmt: skip
    with open(f"{work}/sample.json", "w") as f:
        json.dump(out, f, indent=0)
    print(len(out))


def run(
    work: str,
    wt: str,
    targets: dict | None = None,
    k: dict | None = None,
    tests: dict | None = None,
    last: set | None = None,
) -> None:
    """Run the sample's mutants in the worktree ``wt``; append to ``work/results.jsonl``.

    ``targets``, ``k``, ``tests``, ``last``: another report's (default: this one's).
    """
    targets = RANGES if targets is None else targets
    k = K if k is None else k
    tests = TESTS if tests is None else tests
    last = LAST if last is None else last
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=wt, NUMBA_CACHE_DIR=f"{work}/numba")
    with open(f"{work}/sample.json") as f:
        mutants = json.load(f)
    for t, m in enumerate(mutants, 1):
        m["i"] = t
    order = []
    for rnd in range(max(k.values())):
        for tgt in targets:
            ms = [m for m in mutants if m["target"] == tgt]
            if rnd < len(ms):
                order.append(ms[rnd])
    order = [m for m in order if m["i"] not in last] + [m for m in order if m["i"] in last]
    results = f"{work}/results.jsonl"
    done = set()
    if os.path.exists(results):
        with open(results) as f:
            done = {json.loads(line)["i"] for line in f}
    with open(results, "a") as out:
        for m in order:
            if m["i"] in done:
                continue
            if os.path.exists(f"{work}/STOP"):
                break
            path = m["path"]
            subprocess.run(["git", "-C", wt, "checkout", "--", path], check=True)
            r = subprocess.run(
                ["cosmic-ray", "apply", path, m["op"], str(m["occ"])],
                cwd=wt, capture_output=True, text=True,
            )  # fmt: skip
            diff = subprocess.run(
                ["git", "-C", wt, "diff", "-U0", "--", path], capture_output=True, text=True
            ).stdout
            lines = [x for x in diff.splitlines() if x[:1] in "+-" and x[:3] not in ("+++", "---")]
            rec = dict(**m, diff=lines, apply_rc=r.returncode)
            t0 = time.time()
            rc, failed = 0, ""
            for argv in tests[m["target"]]:
                p = subprocess.run(
                    ["timeout", "600", sys.executable, "-m", "pytest", "-x", "-q", "-n0",
                     "-p", "no:cacheprovider", *argv],
                    cwd=wt, env=env, capture_output=True, text=True,
                )  # fmt: skip
                if p.returncode != 0:
                    rc = p.returncode
                    found = re.findall(r"^(?:FAILED|ERROR) (\S+)", p.stdout, re.M)
                    failed = found[0] if found else ""
                    break
            rec.update(rc=rc, secs=round(time.time() - t0, 1), killed_by=failed,
                       result="killed" if rc else "survived")  # fmt: skip
            subprocess.run(["git", "-C", wt, "checkout", "--", path], check=True)
            rec["restored"] = subprocess.run(["git", "-C", wt, "diff", "--quiet"]).returncode == 0
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(m["i"], m["target"], m["row"], m["op"], rec["result"], rec["secs"], failed)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "sample":
        sample(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
