"""Hand mutants of the eleventh stop's change: fields that change nothing, said so.

    git worktree add --detach /tmp/wtM <commit>
    python benchmarks/mutation_eleventh_stop.py /tmp/wtM      # ~6 min, one core

``Scenario.dead_fields`` / ``_feature_off`` (each feature's test inverted or widened; the
default's value taken as moved), ``unread_context``'s dead fields among scenarios (any for
all; scenarios lacking the category counted), the posterior's ``live`` paths ignored,
``Scenario.reads`` and ``domain_nodes`` (a wrong blame read on a domain of several nodes; a
domain not capped at the job's nodes), ``check_scalable_units`` and ``spread_of_range``'s
bound, in ``relmc/scenario.py``: each mutant (one string replaced) applied alone in the
worktree and judged by the tests that claim it. Prints killed or SURVIVED per mutant: 15 of
15 killed. A first run left two alive (scenarios lacking the category counted; the domain
not capped), each killed by a test added then.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_eighth_stop import run_groups  # noqa: E402

TESTS = [
    "tests/test_scenario.py",
    "tests/test_cli_users.py",
    "tests/test_overheads_api.py",
    "tests/test_physics.py::test_off_values_are_the_constant_rate_process",
    "tests/test_simulate.py::test_finite_spares_cause_waits_and_unlimited_does_not",
]
MUTANTS = [
    (
        '        if pol.lemon_failures == 0:\n            why = "policy.lemon_failures',
        '        if pol.lemon_failures != 0:\n            why = "policy.lemon_failures',
    ),
    (
        "        if pol.escalation_probability == 0:\n            for name in",
        "        if pol.escalation_probability != 0:\n            for name in",
    ),
    (
        "        if pol.memory_restart_hours is None:\n            why",
        "        if pol.memory_restart_hours is not None:\n            why",
    ),
    (
        '        if not any(c.kind == "sdc" for c in self.failures.categories):',
        '        if not all(c.kind == "sdc" for c in self.failures.categories):',
    ),
    (
        '        if pol.n_spares is None:\n            why = "policy.n_spares is unlimited',
        '        if pol.n_spares is not None:\n            why = "policy.n_spares is unlimited',
    ),
    ("        if job.throughput_amplitude == 0:", "        if job.throughput_amplitude <= 1:"),
    (
        "            if c.diurnal_amplitude == 0:  # a rate_profile",
        "            if c.diurnal_amplitude <= 1:  # a rate_profile",
    ),
    (
        "            if all(path in off for off in having):",
        "            if any(path in off for off in having):",
    ),
    ("if cat is None or cat in n]", "]"),
    (
        "            if o.moved and path not in live and (dead_among is None",
        "            if o.moved and (dead_among is None",
    ),
    (
        "            if o.moved and path not in live and (dead_among is None",
        "            if path not in live and (dead_among is None",
    ),
    (
        '        return name != "wrong_blame" or self.domain_nodes(c.domain) == 1',
        '        return name != "wrong_blame" or self.domain_nodes(c.domain) >= 1',
    ),
    (
        '        return min({"node": 1, "rack": cl.nodes_per_rack, "pod": pod}[domain], n_nodes)',
        '        return {"node": 1, "rack": cl.nodes_per_rack, "pod": pod}[domain]',
    ),
    ("    bad = sorted({str(u) for u in units} - set(UNITS))", "    bad = []"),
    ("    if k > MAX_SPREAD:", "    if k > MAX_SPREAD * 10:"),
]

if __name__ == "__main__":
    run_groups(sys.argv[1], [("relmc/scenario.py", MUTANTS, TESTS)])
