"""Seeded cosmic-ray sample over modules no earlier sample covered (MUTATION_SCIENCE.md).

    git worktree add --detach /tmp/wt_m59 HEAD
    python benchmarks/mutation_science_run.py 12 1      # 12 mutants of each module of set 1
    python benchmarks/mutation_science_run.py --wide 1  # its survivors against wider test files
    python benchmarks/mutation_science_run.py 12 2      # set 2 (~35 min each)
    python benchmarks/mutation_science_run.py 12 4      # set 4: the oracle, the kernel's inputs
    MUTATION_WT=/tmp/wt_m60 python benchmarks/mutation_science_run.py 6 5   # set 5, beside

cosmic-ray's ``init`` runs once per module (the config is mutation_modules_cr.toml with its
module path replaced; the databases go to ``DIR``). Each mutant is applied alone in the
worktree and judged by the module's own test files (``SETS[..]["mods"]``); ``--wide``
reruns the survivors against the set's ``wide`` files. A mutant whose tests run past
900 s (a hang) counts as killed.
"""

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import mutation_modules_run  # its run_mutant, with this script's worktree

ROOT = Path(__file__).resolve().parent.parent
WT = os.environ.get("MUTATION_WT", "/tmp/wt_m59")  # another worktree: a second run at once
DIR = Path("/tmp/s59/mut")
#: the module sets: each module's own test files, and the wider files of the second stage
SETS = {
    "1": {
        "mods": {
            "relmc/projection.py": ["tests/test_projection.py"],
            "relmc/optimize.py": ["tests/test_projection.py"],
            "relmc/comparison.py": ["tests/test_compare.py"],
            "relmc/overheads.py": ["tests/test_overheads.py", "tests/test_overheads_api.py"],
        },
        "wide": [
            "tests/test_projection.py", "tests/test_compare.py", "tests/test_overheads.py",
            "tests/test_overheads_api.py", "tests/test_cli.py", "tests/test_cli_users.py",
            "tests/test_faults.py", "tests/test_physics.py", "tests/test_input_bounds.py",
            "tests/test_examples.py",
        ],
        "results": "results2.jsonl",
    },
    "2": {
        "mods": {
            "relmc/cluster.py": ["tests/test_datasets.py", "tests/test_scenario.py"],
            "relmc/datasets.py": ["tests/test_datasets.py"],
            "relmc/sweep/spec.py": ["tests/test_sweep.py", "tests/test_sweep_faults.py"],
            "relmc/sim/simulate.py": ["tests/test_simulate.py"],
        },
        "wide": [
            "tests/test_datasets.py", "tests/test_scenario.py", "tests/test_sweep.py",
            "tests/test_sweep_faults.py", "tests/test_simulate.py", "tests/test_rates.py",
            "tests/test_models.py", "tests/test_input_bounds.py", "tests/test_cli.py",
            "tests/test_faults.py", "tests/test_precision.py",
        ],
        "results": "results3.jsonl",
    },
    "3": {
        "mods": {
            "relmc/sweep/store.py": ["tests/test_sweep.py", "tests/test_sweep_pack.py"],
            "relmc/sweep/running.py": ["tests/test_sweep.py", "tests/test_sweep_faults.py"],
            "relmc/scenario.py": ["tests/test_scenario.py", "tests/test_input_bounds.py"],
            "relmc/cli/inputs.py": ["tests/test_cli.py", "tests/test_faults.py"],
        },
        "wide": [
            "tests/test_sweep.py", "tests/test_sweep_pack.py", "tests/test_sweep_faults.py",
            "tests/test_scenario.py", "tests/test_input_bounds.py", "tests/test_cli.py",
            "tests/test_faults.py", "tests/test_cli_users.py",
        ],
        "results": "results4.jsonl",
    },
    "4": {
        "mods": {
            "relmc/sim/reference.py": [
                "tests/test_reference.py", "tests/test_kernel_vs_reference.py"
            ],
            "relmc/sim/inputs.py": [
                "tests/test_simulate.py", "tests/test_block_path.py",
                "tests/test_generator_address.py",
            ],
            "relmc/plots.py": ["tests/test_plots.py"],
            "relmc/cli/output.py": ["tests/test_cli.py"],
        },
        "wide": {  # per module: the files that use it beyond its own
            "relmc/sim/reference.py": [
                "tests/test_physics.py", "tests/test_physics_sdc.py", "tests/test_nodes.py",
                "tests/test_overheads.py", "tests/test_diurnal_path.py", "tests/test_profiles.py",
                "tests/test_draw_physics.py", "tests/test_mutation_physics.py",
                "tests/test_mutation_physics_nodes.py", "tests/test_fast_paths.py",
                "tests/test_pool_reduced.py",
            ],
            "relmc/sim/inputs.py": [
                "tests/test_diurnal_path.py", "tests/test_diurnal_block.py",
                "tests/test_draw_physics_kernel.py", "tests/test_models_events.py",
                "tests/test_overheads_api.py", "tests/test_input_bounds.py",
            ],
        },
        "results": "results5.jsonl",
    },
    "5": {
        "mods": {
            "relmc/cli/simulate.py": ["tests/test_cli.py"],
            "relmc/cli/project.py": ["tests/test_cli.py"],
            "relmc/sweep/cells.py": ["tests/test_sweep.py"],
            "relmc/defaults.py": ["tests/test_projection.py", "tests/test_rates.py"],
        },
        "wide": [
            "tests/test_cli.py", "tests/test_cli_users.py", "tests/test_faults.py",
            "tests/test_sweep.py", "tests/test_sweep_faults.py", "tests/test_projection.py",
            "tests/test_rates.py", "tests/test_datasets.py", "tests/test_scenario.py",
        ],
        "results": "results6.jsonl",
    },
    "6": {
        "mods": {
            "relmc/cli/options.py": ["tests/test_cli.py", "tests/test_faults.py"],
            "relmc/cli/sweep.py": ["tests/test_sweep.py"],
            "relmc/sweep/slurm.py": ["tests/test_sweep.py"],
            "relmc/cli/compare.py": ["tests/test_cli_users.py"],
        },
        "wide": [
            "tests/test_cli.py", "tests/test_cli_users.py", "tests/test_faults.py",
            "tests/test_sweep.py", "tests/test_sweep_faults.py", "tests/test_sweep_pack.py",
            "tests/test_memory_limits.py", "tests/test_conventions.py",
        ],
        "results": "results7.jsonl",
    },
    "7": {
        "mods": {
            "relmc/cli/fit.py": ["tests/test_cli.py"],
            "relmc/cli/optimize.py": ["tests/test_cli.py"],
            "relmc/cli/datasets.py": ["tests/test_cli.py"],
            "relmc/cli/errors.py": ["tests/test_cli.py", "tests/test_faults.py"],
        },
        "wide": [
            "tests/test_cli.py", "tests/test_cli_users.py", "tests/test_faults.py",
            "tests/test_examples.py", "tests/test_datasets.py",
        ],
        "results": "results8.jsonl",
    },
    "8": {
        "mods": {
            "relmc/_io.py": ["tests/test_memory_limits.py", "tests/test_faults.py"],
            "relmc/_cf.py": ["tests/test_summary.py"],
            "relmc/_extras.py": ["tests/test_cli.py"],
        },
        "wide": {
            "relmc/_io.py": [
                "tests/test_sweep_faults.py", "tests/test_cli.py", "tests/test_sweep.py",
                "tests/test_projection.py", "tests/test_cli_users.py",
            ],
            "relmc/_cf.py": ["tests/test_sweep.py", "tests/test_projection.py"],
            "relmc/_extras.py": ["tests/test_faults.py", "tests/test_cli_users.py"],
        },
        "results": "results9.jsonl",
    },
    "9": {
        "mods": {
            "relmc/cli/examples.py": [
                "tests/test_examples.py::test_examples_command_lists_every_script_and_data_file",
                "tests/test_examples.py::test_examples_summary_is_the_first_sentence",
                "tests/test_examples.py::test_examples_copy_is_complete_and_never_overwrites",
            ],
            "relmc/sweep/__init__.py": ["tests/test_sweep.py"],
        },
        "wide": {
            "relmc/cli/examples.py": [
                "tests/test_examples.py", "tests/test_cli_users.py", "tests/test_cli.py",
            ],
            "relmc/sweep/__init__.py": ["tests/test_sweep_faults.py", "tests/test_sweep_pack.py"],
        },
        "results": "results10.jsonl",
    },
}  # fmt: skip


def mutants(path: str) -> list[tuple]:
    """Every mutant cosmic-ray makes of ``path``: (path, operator, occurrence, line)."""
    db = DIR / f"full_{path.replace('/', '_')}.sqlite"
    if not db.exists():
        toml = (ROOT / "benchmarks" / "mutation_modules_cr.toml").read_text()
        # a config of its own per module: two runs at once (MUTATION_WT) each init theirs
        cfg = db.with_suffix(".toml")
        cfg.write_text(toml.replace("relmc/rates.py", path))
        subprocess.run(["cosmic-ray", "init", str(cfg), str(db)], cwd=ROOT, check=True)
    con = sqlite3.connect(db)
    return con.execute(
        "select module_path, operator_name, occurrence, start_pos_row from mutation_specs"
    ).fetchall()


def run_mutant(path: str, op: str, occ: int, tests: list[str]):
    """Apply one mutant in the worktree and run ``tests``: (changed lines, rc, s, tail)."""
    return mutation_modules_run.run_mutant(path, op, occ, tests, wt=WT)


def wide_stage(which: dict, results: Path) -> None:
    """Rerun the survivors in ``results`` against the set's wider files (``--wide``)."""
    wide = which["wide"]
    res = [json.loads(line) for line in results.open()]
    with results.with_suffix(".wide.jsonl").open("w") as f:
        for r in res:
            files = wide.get(r["path"], []) if isinstance(wide, dict) else wide  # per module
            if r["rc"] == 0 and files:
                _, rc, dt, tail = run_mutant(r["path"], r["op"], r["occ"], files)
                f.write(json.dumps(dict(r, wide_rc=rc, wide_dt=dt, wide_tail=tail)) + "\n")
                f.flush()


def sample_stage(which: dict, results: Path, n: int) -> None:
    """Draw ``n`` mutants of each of the set's modules; judge each by its own test files."""
    rng = random.Random(20261204)
    sample = []
    for path, tests in which["mods"].items():
        own = mutants(path)
        print(path, "mutants:", len(own), flush=True)
        sample += [(m, tests) for m in rng.sample(own, min(n, len(own)))]
    rng.shuffle(sample)
    with results.open("w") as f:
        for (path, op, occ, row), tests in sample:
            changed, rc, dt, tail = run_mutant(path, op, occ, tests)
            rec = dict(path=path, op=op, occ=occ, row=row, changed=changed, rc=rc, dt=dt, tail=tail)
            f.write(json.dumps(rec) + "\n")
            f.flush()


def main() -> None:
    DIR.mkdir(parents=True, exist_ok=True)
    which = SETS[sys.argv[2] if len(sys.argv) > 2 else "1"]
    results = DIR / which["results"]
    try:
        if sys.argv[1] == "--wide":
            wide_stage(which, results)
        else:
            sample_stage(which, results, int(sys.argv[1]))
    finally:  # no mutant left in the worktree
        subprocess.run(["git", "checkout", "-q", "relmc"], cwd=WT, check=True)


if __name__ == "__main__":
    main()
