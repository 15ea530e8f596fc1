"""Hand mutants of the twelfth stop's change: one ``warn_unread`` for every caller.

    git worktree add --detach /tmp/wtM <commit>
    python benchmarks/mutation_twelfth_stop.py /tmp/wtM      # ~3 min, one core

``relmc.sim.simulate.warn_unread`` (the posterior's reads or physics notes not gathered; a
note warned once per scenario), ``simulate``'s call of it (not made), the sweep's
``lower_cells`` (a cell's posterior reads or physics notes dropped), ``compare``'s and
``project``'s labels (not passed): each mutant (one string replaced) applied alone in the
worktree and judged by the tests that claim it. Prints killed or SURVIVED per mutant.
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

if __name__ == "__main__":
    run_groups(
        sys.argv[1],
        [
            ("relmc/sim/simulate.py", SIMULATE, TESTS),
            ("relmc/sweep/cells.py", CELLS, TESTS),
            ("relmc/comparison.py", COMPARISON, TESTS),
            ("relmc/projection.py", PROJECTION, TESTS),
        ],
    )
