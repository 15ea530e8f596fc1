"""Hand mutants of the ninth kernel stop's changes: eight picks at once, the frailty warning.

    git worktree add --detach /tmp/wtM ed7b8a7      # the ninth stop's code: bcd4ac7 rewrote
    python benchmarks/mutation_ninth_stop.py /tmp/wtM      # _pick_fix's lines; ~14 min, one core

Groups: the diurnal block's picks eight at a time (``_pick_lanes``, ``_pick_fix`` and the
block's loop in ``relmc/sim/_kernels.py``), each kernel mutant with a numba cache of its own
(with a shared cache a mutant can run code compiled for the one before it and pass); the
warning that a frailty fit's ``frailty_variance`` is not simulated (``relmc/rates.py``); the
sweep's one read of an existing store (``relmc/sweep/running.py``). Each mutant (one string
replaced) is applied alone in the worktree and judged by its group's tests; the file is
restored after. Prints killed or SURVIVED per mutant.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_eighth_stop import run_groups  # noqa: E402

LANE_TESTS = ["tests/test_diurnal_block.py", "-k", "eight_picks"]
BLOCK_TESTS = [
    "tests/test_diurnal_block.py",
    "-k",
    "eight_picks or the_loop_would_draw or marked_block",
]
LANES = [
    (
        'builder.icmp_signed("==", k, splat(ir.Constant(i64, n_sums), ivec))',
        'builder.icmp_signed(">", k, splat(ir.Constant(i64, n_sums), ivec))',
    ),
    (
        'builder.icmp_signed(">", k, splat(last_, ivec))',
        'builder.icmp_signed(">", k, splat(ir.Constant(i64, 99), ivec))',
    ),
    ("            target = builder.fmul(uv, sums(last_))", "            target = sums(last_)"),
    (
        "return builder.fsub(builder.fadd(w, builder.fmul(rc, cv)), builder.fmul(rs, sv))",
        "return builder.fsub(builder.fadd(w, builder.fmul(rc, sv)), builder.fmul(rs, cv))",
    ),
    ("            for c in range(n_sums):", "            for c in range(n_sums - 1):"),
    (
        '                le = builder.fcmp_ordered("<=", sums(ir.Constant(i64, c)), target)',
        '                le = builder.fcmp_ordered("<", sums(ir.Constant(i64, c)), target)',
    ),
    (
        "            if k > last:\n                k = _pick_last(",
        "            if k > last + 1:\n                k = _pick_last(",
    ),
]
LOOP = [
    ("                if stop - qp >= 8 and jc <= CBUF - 8:", "                if stop - qp >= 8:"),
    (
        "                if stop - qp >= 8 and jc <= CBUF - 8:",
        "                if stop - qp >= 7 and jc <= CBUF - 8:",
    ),
    (
        "                    qp += 8\n                    jc += 8\n",
        "                    qp += 8\n                    jc += 7\n",
    ),
    ("                    if odd != 0:\n", "                    if False:\n"),
    (
        "odd = _pick8_all(pw, prc, prs, sa, ca, ubuf, qp, jc, n_cat - 1, ji)",
        "odd = _pick8_head(pw, prc, prs, sa, ca, ubuf, qp, jc, n_cat - 1, ji) & 0",
    ),
]
RATES = [
    (
        "    unread = tuple(v for v in NOT_SIMULATED_VARIABLES if v in post_vars)",
        "    unread = ()",
    ),
    ("        not_simulated=draws.not_simulated,\n", ""),
    (
        "        physics=physics,\n        not_simulated=unread,\n    )\n\n\ndef fit_shape",
        "        physics=physics,\n    )\n\n\ndef fit_shape",
    ),
    (
        "        if not any(v in idata.posterior for v in "
        "(*PHYSICS_VARIABLES, *NOT_SIMULATED_VARIABLES)):",
        "        if not any(v in idata.posterior for v in PHYSICS_VARIABLES):",
    ),
    ("        for name in draws.not_simulated\n", "        for name in draws.not_simulated[1:]\n"),
]
SIMULATE = [("            *not_simulated_notes(draws),\n", "")]
RUNNING = [
    (
        "    else:  # another task may have made it since: init_store checks it then\n",
        "    if True:\n",
    ),
]
FRAILTY = ["tests/test_rates.py", "-k", "frailty"]
GROUPS = [
    ("relmc/sim/_kernels.py", LANES, LANE_TESTS, True),
    ("relmc/sim/_kernels.py", LOOP, BLOCK_TESTS, True),
    ("relmc/rates.py", RATES, FRAILTY, False),
    ("relmc/sim/simulate.py", SIMULATE, FRAILTY, False),
    (
        "relmc/sweep/running.py",
        RUNNING,
        ["tests/test_overheads_api.py", "-k", "store_made_before"],
        False,
    ),
]

if __name__ == "__main__":
    run_groups(sys.argv[1], GROUPS)
