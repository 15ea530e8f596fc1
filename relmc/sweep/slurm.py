"""Slurm: the sbatch script of a sweep (one array task per shard) and its submission.

Every ``#SBATCH`` value comes from the allow-listed :class:`~relmc.sweep.SlurmOptions`; the
task line runs ``python -m relmc sweep run`` with every path ``shlex.quote``-d; ``sbatch`` is
called without a shell.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from relmc._io import atomic_path
from relmc.errors import FieldError
from relmc.sweep.cells import check_cells, format_cells
from relmc.sweep.spec import SlurmOptions, SweepSpec, resolve_store
from relmc.sweep.store import check_same_spec, init_store, status

__all__ = ["sbatch_script", "submit"]


def sbatch_script(
    spec_path: str | os.PathLike,
    store: str | os.PathLike,
    options: SlurmOptions,
    cells: Sequence[int] | None = None,
    *,
    n_cells: int | None = None,
) -> str:
    """Return the sbatch script of a sweep: one array task per shard.

    Every ``#SBATCH`` value comes from the allow-listed :class:`SlurmOptions`; every path in
    the shell part is ``shlex.quote``-d. With ``cells`` (the cells a partly done store
    misses), the tasks shard that list (``relmc sweep run --cells -``, the list in the
    script itself, so a requeued task reads the list its job was submitted with), and the
    array has at most one task per cell; the list is checked against the grid's
    ``n_cells`` (read from the spec when not given) before any script is made.
    """
    if cells is not None:
        if n_cells is None:
            n_cells = SweepSpec.from_toml(spec_path).n_cells
        cells = check_cells(cells, n_cells)
    n = options.array if cells is None else min(options.array, len(cells))
    array = f"0-{n - 1}" + (f"%{options.max_parallel}" if options.max_parallel else "")
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={options.job_name}",
        f"#SBATCH --array={array}",
        "#SBATCH --ntasks=1",
        f"#SBATCH --cpus-per-task={options.cpus_per_task}",
    ]
    if options.partition:
        lines.append(f"#SBATCH --partition={options.partition}")
    if options.account:
        lines.append(f"#SBATCH --account={options.account}")
    if options.time:
        lines.append(f"#SBATCH --time={options.time}")
    lines += [f"#SBATCH {x}" for x in options.extra]
    python = options.python or sys.executable
    cmd = [
        python,
        "-m",
        "relmc",
        "sweep",
        "run",
        str(Path(spec_path).absolute()),
        "--store",
        str(Path(store).absolute()),
    ]
    run = (
        " ".join(shlex.quote(c) for c in cmd)
        + f' --shard "$SLURM_ARRAY_TASK_ID" --shards {n} --n-threads {options.cpus_per_task}'
        + " --no-progress"
    )
    lines += [
        "# written by relmc.sweep; each task computes the missing cells of its shard, so a",
        "# requeued or rerun task only redoes unfinished cells",
        "set -euo pipefail",
    ]
    if cells is None:
        lines.append(run)
    else:  # the cells missing at submission, shared by position (a heredoc: no length limit)
        lines += [
            f"# {len(cells)} cells were missing when this job was submitted; task s runs",
            "# entries s, s + shards, ... of their list",
            run + " --cells - <<'RELMC_CELLS'",
            *_lines_of(format_cells(cells).split(","), 100),
            "RELMC_CELLS",
        ]
    return "\n".join(lines) + "\n"


def _lines_of(parts: list[str], width: int) -> list[str]:
    """Join ``parts`` by commas into lines of at most ``width`` characters (a longer part whole)."""
    lines: list[str] = []
    for p in parts:
        if lines and len(lines[-1]) + 1 + len(p) <= width:
            lines[-1] += "," + p
        else:
            lines.append(p)
    return lines


#: what ``sbatch --test-only`` says when it refuses a job's options (Slurm's messages)
_REFUSED = re.compile(
    r"unrecognized option|unknown option|\binvalid\b|configuration is not available",
    re.IGNORECASE,
)


def submit(
    spec_path: str | os.PathLike,
    *,
    store: str | os.PathLike | None = None,
    options: SlurmOptions | None = None,
    dry_run: bool = False,
    wait: bool = False,
    workdir: str | os.PathLike | None = None,
    on_submit: Callable[[str], None] | None = None,
) -> str:
    """Validate the sweep, create its store and submit it as a Slurm job array.

    Parameters
    ----------
    spec_path : path
        TOML spec file (array tasks read it again).
    store : path, optional
        Store path; default the spec's ``store``.
    options : SlurmOptions, optional
        Default: the spec's ``[slurm]`` table.
    dry_run : bool
        Return the sbatch script without creating or submitting anything.
    wait : bool
        ``sbatch --wait``: return when every task has finished; a failed task raises a
        ``RuntimeError`` naming the job, its task logs and the store.
    workdir : path, optional
        Where the script and the task logs go; default ``<store>.slurm`` beside the store.
    on_submit : callable, optional
        Called with the job id as soon as Slurm accepted the job (with ``wait``, before the
        wait), e.g. to print it.

    Raises
    ------
    ValueError
        When the options' ``array`` exceeds the grid's cells (a
        :class:`~relmc.errors.FieldError` naming ``slurm.array``), or ``sbatch --test-only``
        refuses the job (an unknown partition or option, more than a node has); either
        before the store or the script is written.

    Returns
    -------
    str
        The script (``dry_run``) or the Slurm job id; ``""`` when the store is complete
        already (nothing is submitted). On a partly done store the array's tasks share the
        cells missing at submission (at most one task a cell), not the grid's shards, some
        of which may be done.
    """
    spec = SweepSpec.from_toml(spec_path)
    opts = spec.slurm if options is None else options
    if not isinstance(opts, SlurmOptions):
        raise ValueError(f"options must be SlurmOptions; got {opts!r}")
    if opts.array > spec.n_cells:
        raise FieldError(
            "slurm.array",
            f"slurm.array must be at most the number of cells ({spec.n_cells}); got "
            f"{opts.array} (tasks beyond that would have nothing to do)",
        )
    store = resolve_store(spec, store)
    cells = None
    if store.exists():
        check_same_spec(spec, store)
        # verified: a done cell whose data fail their checksum (a damaged chunk) is missing
        # too, as a task's run would recompute it
        missing = status(store, verify=True).missing
        if missing.size == 0:
            return ""  # every cell done: an array would have nothing to do
        if missing.size < spec.n_cells:  # a partly done store: the tasks share the rest
            cells = missing.tolist()
    script = sbatch_script(spec_path, store, opts, cells, n_cells=spec.n_cells)
    if dry_run:
        return script
    if shutil.which("sbatch") is None:  # look first: create nothing for a job never submitted
        raise RuntimeError("sbatch not found: is Slurm installed on this machine?")
    # Slurm's own check of the script's options, before anything is written: a refusal of
    # an option (an unknown partition or flag, more than a node has) is bad input; any other
    # failure of the check (the controller unreachable, a partition down that would queue
    # the job) is left to the submission itself
    test = subprocess.run(
        ["sbatch", "--test-only"], input=script, capture_output=True, text=True, check=False
    )
    reason = " ".join(test.stderr.split())
    if test.returncode != 0 and _REFUSED.search(reason):
        raise ValueError(f"sbatch refused the job ({reason}); nothing was written")
    init_store(spec, store)
    work = Path(workdir) if workdir is not None else store.with_name(store.name + ".slurm")
    work.mkdir(parents=True, exist_ok=True)
    script_path = work / "sweep.sbatch"
    with atomic_path(script_path) as tmp:
        tmp.write_text(script)
    # no shell: arguments go to sbatch as a list; logs land in the working directory
    cmd = ["sbatch", "--parsable", "--output=slurm-%A_%a.out"]
    if wait:
        cmd.append("--wait")
    cmd.append(str(script_path))
    try:
        proc = subprocess.Popen(
            cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    except FileNotFoundError as e:
        raise RuntimeError("sbatch not found: is Slurm installed on this machine?") from e
    with proc:
        # --parsable prints the id when Slurm accepts the job: with --wait, long before the end
        assert proc.stdout is not None
        job = proc.stdout.readline().strip().split(";")[0]
        if job and on_submit is not None:
            on_submit(job)
        _, err = proc.communicate()
    if proc.returncode != 0:
        reason = " ".join(err.split())
        if not job:
            raise RuntimeError(f"sbatch failed ({proc.returncode}): {reason}")
        raise RuntimeError(
            f"Slurm job {job} ended with a failed task (sbatch --wait exit "
            f"{proc.returncode}{': ' + reason if reason else ''}); its task logs are "
            f"{work / f'slurm-{job}_*.out'}, and 'relmc sweep status {store}' shows the "
            "cells done (submitting again computes the rest)"
        )
    return job
