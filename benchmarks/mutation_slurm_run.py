"""Every cosmic-ray mutant of ``relmc/sweep/slurm.py`` (the sbatch script and submission).

    git worktree add --detach /tmp/wtS HEAD && mkdir -p /tmp/s85/mut && cd /tmp/wtS && \\
        cosmic-ray init /work/main/benchmarks/mutation_slurm_cr.toml /tmp/s85/mut/slurm.sqlite
    python benchmarks/mutation_slurm_run.py          # every mutant, the quick tests; ~45 min
    python benchmarks/mutation_slurm_run.py --wide   # the survivors: wider tests, a real Slurm

Each mutant is applied alone in the worktree and judged by the tests that name ``sbatch``,
``submit`` or ``slurm`` in four test files (fake ``sbatch`` programs on PATH, no Slurm
needed); ``--wide`` reruns the survivors against those files whole, then the survivors of
that against ``tests/integration/test_slurm.py`` (a real single-node Slurm, ``bash
.ci/slurm_local.sh start``; its tasks inherit ``PYTHONPATH``, so they import the mutant).
"""

import json
import re
import sqlite3
import subprocess
import sys

import mutation_modules_run

WT = "/tmp/wtS"
DIR = "/tmp/s85/mut"
FILES = ["tests/test_sweep.py", "tests/test_sweep_faults.py", "tests/test_faults.py",
         "tests/test_cli_users.py"]  # fmt: skip
QUICK = [*FILES, "-k", "submit or sbatch or slurm"]
# in turn, the second for the first's survivors only: the tests of a task's failure under
# --wait and of sbatch killed by a signal (named for neither), then a real Slurm
WIDE = ([*FILES, "-k", "submit or sbatch or slurm or wait or signal"],
        ["tests/integration/test_slurm.py"])  # fmt: skip
#: a signature's parameter (name, annotation, default) or return annotation
SIGNATURE = re.compile(r"^[-+](?:(\s+\w+): [^=]*?(\s*=.*)?,?|\)\s*->.*)$")


def annotation_only(changed) -> bool:
    """Whether a mutant changes only annotations (strings under ``from __future__ import
    annotations``: equivalent at run time; CI's mypy step refuses them), not a default."""
    rest = []
    for line in changed:
        m = SIGNATURE.match(line)
        if m is None:
            return False
        rest.append((line[0], m.groups()))
    return {g for s, g in rest if s == "-"} == {g for s, g in rest if s == "+"}


def run_mutant(path, op, occ, tests, wt=WT):
    """:func:`mutation_modules_run.run_mutant` (one mutant applied alone in ``wt``, ``tests``
    run) with pytest-randomly off, the tests in file order: (changed lines, rc, s, tail)."""
    return mutation_modules_run.run_mutant(path, op, occ, ["-p", "no:randomly", *tests], wt=wt)


def main():
    if sys.argv[1:] == ["--wide"]:
        recs = [json.loads(line) for line in open(f"{DIR}/results.jsonl")]
        out = open(f"{DIR}/wide.jsonl", "a")
        for rec in recs:
            if rec["rc"] != 0 or annotation_only(rec["changed"]):
                continue
            for tests in WIDE:
                changed, rc, s, tail = run_mutant(rec["path"], rec["op"], rec["occ"], tests)
                if rc != 0:
                    break
            out.write(json.dumps(dict(rec, rc=rc, s=s, tail=tail, wide=True)) + "\n")
            out.flush()
        subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)
        return
    con = sqlite3.connect(f"{DIR}/slurm.sqlite")
    rows = con.execute(
        "select module_path, operator_name, occurrence, start_pos_row from mutation_specs"
    ).fetchall()
    out = open(f"{DIR}/results.jsonl", "a")
    for path, op, occ, line in rows:
        changed, rc, s, tail = run_mutant(path, op, occ, QUICK)
        rec = dict(path=path, op=op, occ=occ, line=line, changed=changed, rc=rc, s=s, tail=tail)
        out.write(json.dumps(rec) + "\n")
        out.flush()
    subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)


if __name__ == "__main__":
    main()
