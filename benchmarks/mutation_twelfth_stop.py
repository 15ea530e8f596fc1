"""Hand mutants of the twelfth stop's change: one ``warn_unread`` for every caller.

    git worktree add --detach /tmp/wtM <commit>
    python benchmarks/mutation_twelfth_stop.py /tmp/wtM      # ~8 min, one core

``relmc.sim.simulate.warn_unread`` (the posterior's reads or physics notes not gathered; a
note warned once per scenario), ``simulate``'s call of it (not made), the sweep's
``lower_cells`` (a cell's posterior reads or physics notes dropped), ``compare``'s and
``project``'s labels (not passed); and the planned maintenance of a user's own data
(``with_maintenance``'s whole-number test, its range's two ends, numpy's bool, the window's
test; ``load_counts`` / ``load_events`` not applying it; the CLI's refusal of a dataset that
records its own, ``--counts`` and ``--events`` not passing it): each mutant (one string
replaced) applied alone in the worktree and judged by the tests that claim it. Prints killed
or SURVIVED per mutant.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_eighth_stop import run_groups  # noqa: E402

TESTS = [
    "tests/test_scenario.py::test_a_peak_hour_under_a_profile_or_a_posteriors_amplitude",
    "tests/test_scenario.py::test_simulate_warns_of_fields_a_kind_does_not_read",
    "tests/test_scenario.py::test_sweeps_and_comparisons_warn_only_of_fields_no_scenario_reads",
    "tests/test_models_events.py::test_scenario_fields_the_posterior_replaces_are_warned_of",
    "tests/test_models_events.py::test_a_sweep_warns_once_of_each_replaced_value",
]
SIMULATE = [
    ('        live |= lab["posterior_reads"]\n', "        pass\n"),
    ('        physics_notes += lab["physics_notes"]\n', "        pass\n"),
    ("        if note not in seen:\n", "        if True:\n"),
    ("        warn_unread([scenario], [labels])\n", "        pass\n"),
]
CELLS = [
    ("out.append({k: labels[k] for k in _NOTE_LABELS})",
     'out.append({"physics_notes": labels["physics_notes"], "posterior_reads": set()})'),
    ("out.append({k: labels[k] for k in _NOTE_LABELS})",
     'out.append({"physics_notes": [], "posterior_reads": labels["posterior_reads"]})'),
]  # fmt: skip
COMPARISON = [
    ("    warn_unread(list(runs_at[0].values()), labels)",
     "    warn_unread(list(runs_at[0].values()))"),
]  # fmt: skip
PROJECTION = [
    ("    warn_unread(scenarios, labels)  # once", "    warn_unread(scenarios)  # once"),
]
# planned maintenance of a user's own data (load_counts / load_events, --observed-maintenance)
MAINT_TESTS = [
    "tests/test_datasets.py::test_own_counts_and_logs_record_their_planned_maintenance",
    "tests/test_cli_users.py::test_fit_records_the_observed_planned_maintenance",
]
DATASETS = [
    (
        "    elif isinstance(count, numbers.Integral):  # any size: 10**400 is no float\n"
        "        whole = True",
        "    elif isinstance(count, numbers.Integral):  # any size: 10**400 is no float\n"
        "        whole = False",
    ),
    (
        "    if not whole or not 0 <= count <= MAX_COUNT:",
        "    if not whole or not 0 < count <= MAX_COUNT:",
    ),
    (
        "    if not whole or not 0 <= count <= MAX_COUNT:",
        "    if not whole or not 0 <= count < MAX_COUNT:",
    ),
    ("    if isinstance(count, bool | np.bool_) or", "    if isinstance(count, bool) or"),
    (
        '    if not float(ds.attrs.get("duration_hours") or 0.0) > 0.0:',
        '    if not float(ds.attrs.get("duration_hours") or 0.0) >= 0.0:',
    ),
    (
        "    return with_maintenance(_build(*columns, attrs), maintenance_count)",
        "    return _build(*columns, attrs)",
    ),
]
EVENTS = [("    return with_maintenance(ds, maintenance_count)", "    return ds")]
CLI_INPUTS = [
    ('        if maintenance is not None and "maintenance_count" in data:', "        if False:"),
    (
        '    data = _with_maintenance(data, maintenance, "needs --observed-hours with --counts")',
        "    pass",
    ),
]
CLI_FIT = [("            maintenance_count=args.observed_maintenance,\n", "")]

if __name__ == "__main__":
    run_groups(
        sys.argv[1],
        [
            ("relmc/sim/simulate.py", SIMULATE, TESTS),
            ("relmc/sweep/cells.py", CELLS, TESTS),
            ("relmc/comparison.py", COMPARISON, TESTS),
            ("relmc/projection.py", PROJECTION, TESTS),
            ("relmc/datasets.py", DATASETS, MAINT_TESTS),
            ("relmc/events.py", EVENTS, MAINT_TESTS),
            ("relmc/cli/inputs.py", CLI_INPUTS, MAINT_TESTS),
            ("relmc/cli/fit.py", CLI_FIT, MAINT_TESTS),
        ],
    )
