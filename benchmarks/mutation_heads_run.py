"""The seeded cosmic-ray sample of ``benchmarks/MUTATION_HEADS.md``: select, then run.

The code of the seventh stop of the kernel-speed work (ed725b7, 23b624d, c1e6698): a pick
at a phase by its first 16 sums (``_pick_at_phase``'s count, ``_count_sums``,
``_pick_mode``) and a trial's sums in registers (``_row_sums``, ``_acc_pairwise``). Line
numbers of ``relmc/sim/_kernels.py`` at 8a1d383.

    git worktree add --detach /tmp/wt_heads 8a1d383
    cosmic-ray init benchmarks/mutation_pick_cr.toml WORK/kernels.sqlite   # the whole file
    python benchmarks/mutation_heads_run.py sample WORK          # writes WORK/sample.json
    python benchmarks/mutation_heads_run.py run WORK /tmp/wt_heads   # WORK/results.jsonl

Selection and running as ``mutation_recent_run.py`` (whose ``sample`` and ``run`` this
calls with the targets below): per target the in-range mutants ordered by (row, column,
operator, occurrence), ``random.Random(2026).sample``; round robin over the targets, each
mutant alone in the worktree, judged by its target's test commands in order (``pytest -x``,
600 s each, one core), the file restored after. Resumable; ``WORK/STOP`` stops it.
"""

import os
import shutil
import sys

from mutation_recent_run import run, sample

KERNELS = "relmc/sim/_kernels.py"
RANGES = {
    "pick": (KERNELS, [(4554, 4570), (4700, 4717)]),  # _pick_at_phase's body, _pick_mode
    "count": (KERNELS, [(4580, 4646)]),  # _count_sums (its intrinsic and the chunks' bits)
    "rows": (KERNELS, [(2722, 2765), (2774, 2779)]),  # _row_sums, _acc_pairwise
}
K = {"pick": 12, "count": 10, "rows": 12}
PICK = [
    [
        "tests/test_diurnal_block.py",
        "-k",
        "pick_by_count or pick_mode or sums_rise or never_takes or share_of_the_intensity",
    ],
    ["tests/test_diurnal_block.py", "-k", "pick or marked or each_category"],
]
TESTS = {
    "pick": PICK,
    "count": PICK,
    "rows": [
        ["tests/test_diurnal_block.py", "-k", "acc_pairwise"],
        ["tests/test_fast_paths.py", "-k", "block or renewal"],
        ["tests/test_diurnal_block.py", "-k", "marked or one_by_one"],
    ],
}


def _database(work: str) -> None:
    """Every target reads the one database of the whole file, ``WORK/kernels.sqlite``."""
    for name in RANGES:
        db = f"{work}/{name}.sqlite"
        if not os.path.exists(db):
            shutil.copyfile(f"{work}/kernels.sqlite", db)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "sample":
        _database(sys.argv[2])
        sample(sys.argv[2], RANGES, K)
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], RANGES, K, TESTS, set())
    else:
        raise SystemExit(__doc__)
