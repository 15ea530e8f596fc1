"""Hand mutants of the eighth kernel stop's changes outside the kernel.

    git worktree add --detach /tmp/wtM <commit>
    python benchmarks/mutation_eighth_stop.py /tmp/wtM      # ~2.5 min, one core

Groups: the sweep store's refusal of a store made before a seeding rule (``check_same_spec``,
``_old_rule`` in ``relmc/sweep/store.py``); ``Precision``'s check of the last round
(``run_kernel`` in ``relmc/sim/simulate.py``); the maintenance record read where documented
(``recorded_maintenance_rate`` in ``relmc/rates.py``). Each mutant (one line replaced) is
applied alone in the worktree and judged by its group's tests; the file is restored after.
Prints killed or SURVIVED per mutant.
"""

import os
import subprocess
import sys
import tempfile

STORE = [
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
PRECISION = [
    (
        "            if precision is not None:  # the last round too",
        "            if precision is not None and end < rounds[-1]:  # the last round too",
    ),
    ("                if why is not None:\n", "                if why is None:\n"),
    ("                    stopped = why\n", '                    stopped = "n_trials"\n'),
    (
        "                m = min(n, end * BLOCK_SIZE)\n",
        "                m = end * BLOCK_SIZE - 1\n",
    ),
]
MAINT = [
    (
        '        if "maintenance_rate" not in attrs and "rate" in getattr(post, "data_vars", {}):',
        '        if "maintenance_rate" in attrs and "rate" in getattr(post, "data_vars", {}):',
    ),
    (
        '        if "maintenance_rate" not in attrs and "rate" in getattr(post, "data_vars", {}):',
        '        if "rate" in getattr(post, "data_vars", {}):',
    ),
    ('            attrs = post["rate"].attrs\n', "            pass\n"),
]
GROUPS = [
    (
        "relmc/sweep/store.py",
        STORE,
        [
            "tests/test_overheads_api.py::"
            "test_a_store_made_before_cells_shared_multipliers_is_refused_with_spreads",
            "tests/test_sweep.py::test_a_conjugate_posterior_is_fitted_from_a_seed_no_cell_shares",
            "tests/test_sweep.py::test_one_axis_sweep_verifies_and_a_rerun_computes_nothing",
        ],
    ),
    ("relmc/sim/simulate.py", PRECISION, ["tests/test_precision.py"]),
    (
        "relmc/rates.py",
        MAINT,
        ["tests/test_projection.py", "-k", "maintenance_record or adds_planned_maintenance"],
    ),
]


def run_groups(wt, groups):
    """Apply each group's mutants alone in worktree ``wt`` and run its tests; print each.

    A group is ``(path, mutants, tests)`` or ``(path, mutants, tests, own_cache)``: with
    ``own_cache`` each mutant runs with a numba cache of its own (a kernel mutant could
    otherwise run code compiled for the one before it). Returns (killed, total).
    """
    killed = total = 0
    for path, mutants, tests, *rest in groups:
        own_cache = bool(rest and rest[0])
        f = os.path.join(wt, path)
        orig = open(f).read()
        try:
            for i, (a, b) in enumerate(mutants):
                assert orig.count(a) == 1, a
                open(f, "w").write(orig.replace(a, b))
                env = {**os.environ, "PYTHONPATH": wt}
                with tempfile.TemporaryDirectory() as cache:
                    if own_cache:
                        env["NUMBA_CACHE_DIR"] = cache
                    r = subprocess.run(
                        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
                        + ["-n", "0", *tests],
                        cwd=wt,
                        env=env,
                        capture_output=True,
                        text=True,
                    )
                killed += bool(r.returncode)
                total += 1
                print(
                    path,
                    i,
                    "killed" if r.returncode else "SURVIVED",
                    repr(b.strip())[:80],
                    r.stdout.strip().splitlines()[-1][:60],
                    flush=True,
                )
        finally:
            open(f, "w").write(orig)
    print(f"{killed} of {total} killed")
    return killed, total


if __name__ == "__main__":
    run_groups(sys.argv[1], GROUPS)
