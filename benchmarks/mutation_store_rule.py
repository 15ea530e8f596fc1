"""Hand mutants of the sweep store's refusal of a store made before a seeding rule.

    git worktree add --detach /tmp/wtM a8043ff
    python benchmarks/mutation_store_rule.py /tmp/wtM      # ~1.5 min, one core

Each mutant (a line of ``check_same_spec`` / ``_old_rule`` in ``relmc/sweep/store.py``
replaced) is applied alone in the worktree and judged by the three tests below; the file is
restored after. Prints killed or SURVIVED per mutant.
"""

import os
import subprocess
import sys

WT = sys.argv[1]
F = os.path.join(WT, "relmc/sweep/store.py")
orig = open(F).read()
M = [
    ("        if left:\n", "        if not left:\n"),
    ("    if rule is not None:\n", "    if rule is None:\n"),
    (
        "left = status(store, verify=True).missing.size",
        "left = status(store, verify=False).missing.size",
    ),
    (
        '    if "overhead_seed" not in attrs and _spreads_set(spec):',
        '    if "overhead_seed" in attrs and _spreads_set(spec):',
    ),
    (
        '    if "overhead_seed" not in attrs and _spreads_set(spec):',
        '    if "overhead_seed" not in attrs or _spreads_set(spec):',
    ),
    (
        '    if "posterior_seed" not in attrs and spec.posterior.startswith("conjugate:"):',
        '    if "posterior_seed" not in attrs:',
    ),
    (
        '    if "posterior_seed" not in attrs and spec.posterior.startswith("conjugate:"):',
        "    if False:",
    ),
    ('    if "overhead_seed" not in attrs and _spreads_set(spec):', "    if False:"),
    (
        "left = status(store, verify=True).missing.size",
        "left = status(store, verify=True).missing.size - 1",
    ),
]
tests = [
    "tests/test_overheads_api.py::test_a_store_made_before_cells_shared_multipliers_is_refused_with_spreads",
    "tests/test_sweep.py::test_a_conjugate_posterior_is_fitted_from_a_seed_no_cell_shares",
    "tests/test_sweep.py::test_one_axis_sweep_verifies_and_a_rerun_computes_nothing",
]
for i, (a, b) in enumerate(M):
    assert orig.count(a) == 1, a
    open(F, "w").write(orig.replace(a, b))
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *tests],
        cwd=WT,
        env={**os.environ, "PYTHONPATH": WT},
        capture_output=True,
        text=True,
    )
    print(
        i,
        "killed" if r.returncode else "SURVIVED",
        repr(b.strip())[:90],
        r.stdout.strip().splitlines()[-1][:80],
        flush=True,
    )
open(F, "w").write(orig)
