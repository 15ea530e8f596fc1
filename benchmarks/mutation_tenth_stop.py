"""Hand mutants of the tenth kernel stop's change: one pick by a count of all sums.

    git worktree add --detach /tmp/wtM <commit>
    python benchmarks/mutation_tenth_stop.py /tmp/wtM      # ~5 min, one core

``_pick_counted`` (the count of all ``_PICK_W`` sums, else ``_pick_last``), ``_pick_target``
and the count modes of ``_pick_at_phase`` that now end in it, and ``_pick_fix``'s lanes, in
``relmc/sim/_kernels.py``: each mutant (one string replaced) applied alone in the worktree,
with a numba cache of its own, and judged by the pick tests of
``tests/test_diurnal_block.py``; the file is restored after. Prints killed or SURVIVED per
mutant: 10 of 10 killed. A first run left two alive: the fallback replaced by category 0
(the test now has a total of 0 whose first sum rounds below it) and the scan without its last
category (equivalent, replaced by one without its first).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_eighth_stop import run_groups  # noqa: E402

PICK_TESTS = [
    "tests/test_diurnal_block.py",
    "-k",
    "pick_at_phase or pick_by_count or eight_picks or drifted_phases",
]
PICKS = [
    # the fallback where the count passes the last category
    (
        "    return k if k < n_cat else _pick_last(pw, prc, prs, s1, c1, n_cat)",
        "    return k if k <= n_cat else _pick_last(pw, prc, prs, s1, c1, n_cat)",
    ),
    (
        "    return k if k < n_cat else _pick_last(pw, prc, prs, s1, c1, n_cat)",
        "    return k if k < n_cat else 0",
    ),
    # the head's count taken as it is only below the sixteenth sum and the last category
    (
        "        if k < _PICK_HEAD_W and k < n_cat:",
        "        if k <= _PICK_HEAD_W and k < n_cat:",
    ),
    ("        if k < _PICK_HEAD_W and k < n_cat:", "        if k < _PICK_HEAD_W:"),
    # the target: the last category's running sum times the uniform
    ("    last = n_cat - 1\n    return u * (", "    last = n_cat - 2\n    return u * ("),
    (
        "    return u * (pw[last] + prc[last] * c1 - prs[last] * s1)",
        "    return u * (pw[last] + prc[last] * s1 - prs[last] * c1)",
    ),
    # the scan's categories, all of them (the scan without the last category is equivalent:
    # where no earlier sum exceeds the target, _pick_last gives the last whose sum rises, the
    # one the scan would take; the first run had it survive)
    (
        "        for c in range(n_cat):\n            if pw[c] + prc[c] * c1",
        "        for c in range(1, n_cat):\n            if pw[c] + prc[c] * c1",
    ),
    # the count modes end in the count of all sums, not the scan's fallback
    (
        "    return _pick_counted(u, pw, prc, prs, s1, c1, n_cat), jc",
        "    return _pick_last(pw, prc, prs, s1, c1, n_cat), jc",
    ),
    # each of _pick_fix's lanes with its own uniform and phase
    ("                ubuf[jc + lane], pw, prc, prs,", "                ubuf[jc], pw, prc, prs,"),
    (
        "pw, prc, prs, sa[q + lane], ca[q + lane], n_cat",
        "pw, prc, prs, sa[q], ca[q + lane], n_cat",
    ),
]
GROUPS = [("relmc/sim/_kernels.py", PICKS, PICK_TESTS, True)]

if __name__ == "__main__":
    run_groups(sys.argv[1], GROUPS)
