"""``relmc sweep {init,run,submit,status,open,pack}``: grids of scenarios into a zarr store.

Thin: parses, calls :mod:`relmc.sweep`, prints. Options that feed an API field record it
(:class:`relmc.cli.options.Field`), so a bad ``--time`` is reported as ``slurm.time ...
(option --time)``, while the same bad value in the spec's ``[slurm]`` table is reported by its
TOML field alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from relmc.cli import options
from relmc.cli.output import say

EPILOGS = {
    "sweep": """examples (spec layout: 'relmc sweep init' writes a commented template):
  relmc sweep init sweep.toml                        # a template spec to edit
  relmc sweep run examples/sweep.toml
  relmc sweep submit examples/sweep.toml --array 8 --partition gpu --dry-run
  relmc sweep status examples/sweep.zarr
  relmc sweep open examples/sweep.zarr
  relmc sweep pack examples/sweep.zarr               # a finished store into few files""",
    "init": """examples:
  relmc sweep init                  # writes sweep.toml (refuses to replace an existing file)
  relmc sweep init grids/restart.toml
  relmc sweep run grids/restart.toml --n-trials 64 --store quick.zarr   # a quick look""",
    "run": """Adaptive precision lives in the spec, not in flags: a [precision] table (target_se,
target_rse, hopeless_ettr, min_trials; see 'relmc sweep init') makes n_trials each cell's
budget, and is part of the spec's identity like every other field.

examples:
  relmc sweep run spec.toml                          # every missing cell, all cores
  relmc sweep run spec.toml --n-trials 64 --store quick.zarr   # a quick look
  relmc sweep run spec.toml --shard 3 --shards 8     # what Slurm array task 3 of 8 runs
  relmc sweep run spec.toml --dask tcp://host:8786   # on a Dask cluster
  relmc sweep run spec.toml --shard 3 --shards 8 --pack   # the shard that completes it packs
  relmc sweep run spec.toml --cells 4-7,12 --shard 1 --shards 2   # entries 1, 3 of the list
  (kill it at any moment and run it again: only missing cells are computed)""",
    "submit": """examples:
  relmc sweep submit spec.toml --array 8 --dry-run   # print the sbatch script only
  relmc sweep submit spec.toml --array 8 --partition gpu --time 02:00:00 --account proj
  relmc sweep submit spec.toml --sbatch=--mem=8G --wait   # then prints the store's status

A store with every cell done submits nothing ("nothing to submit"); a partial one submits
an array whose tasks share the cells missing (or damaged) at submission: the list is in the
script (relmc sweep run --cells -), at most one task a cell. The script and the tasks' logs
go to a folder STORE.slurm beside the store (delete it with the store). The options
override the spec's [slurm] table field by field (--sbatch adds to its extra). With --wait,
a task that failed or was cancelled ends the command with exit status 1, naming the job,
its logs and the store (submit again: the new array takes the cells still missing).""",
    "status": """examples:
  relmc sweep status sweep.zarr
  relmc sweep status sweep.zarr --json
  relmc sweep status sweep.zarr --verify     # read every done cell back, check its checksum""",
    "open": """examples:
  relmc sweep open sweep.zarr
  relmc sweep open sweep.zarr --csv             # the cube as a table on stdout
  relmc sweep open sweep.zarr --csv cube.csv    # ... written to a file (atomically)
  relmc sweep open sweep.zarr --netcdf cube.nc  # the whole cube, one netCDF file
  (from Python: relmc.sweep.open_sweep("sweep.zarr") returns the xarray cube)""",
    "pack": """A running sweep keeps one file per cell per variable, so that every cell's write is
atomic and independent. A finished store needs none of that: pack rewrites it with chunks of
many cells (up to 64 MiB each), the same data, flags, checksums and attrs, in a few files.
Only a complete store whose every cell verifies is packed; a packed store is read-only
(open, status and status --verify work; run computes nothing). In place, the packed copy is
built beside the store, compared with it bit for bit, then swapped in by two renames: a kill
at any moment leaves a usable store, and the next pack, status, open or run finishes a swap
that was cut between its renames.

examples:
  relmc sweep pack sweep.zarr                      # in place
  relmc sweep pack sweep.zarr --out archive.zarr   # a packed copy; sweep.zarr stays
  relmc sweep run spec.toml --pack                 # run, then pack once complete
  relmc sweep status sweep.zarr --verify           # every cell checked on the packed layout""",
}
# every sweep command's help ends saying where a spec to start from is
_SPEC_SOURCES = """

spec to start from: 'relmc sweep init' writes the package's commented template
(relmc/templates/sweep.toml); 'relmc examples --copy DIR' copies a complete one (sweep.toml)
with the example scripts."""
EPILOGS = {name: text + _SPEC_SOURCES for name, text in EPILOGS.items()}

# `relmc sweep submit` options that override a field of the spec's [slurm] table
_SLURM_FIELDS = ("array", "partition", "account", "time", "cpus_per_task", "max_parallel", "python")


def add_parser(sub) -> None:
    """Register ``relmc sweep`` and its own subcommands."""
    p = options.add_subcommand(
        sub,
        "sweep",
        "grids of scenarios into a resumable zarr store (relmc.sweep)",
        EPILOGS["sweep"],
    )
    ssub = p.add_subparsers(dest="sweep_command", required=True, metavar="COMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return options.add_subcommand(ssub, name, help, EPILOGS[name])

    i = add("init", "write a commented template sweep spec")
    i.add_argument(
        "path", nargs="?", default="sweep.toml", help="where to write it (default: sweep.toml)"
    )
    i.set_defaults(func=_init)

    r = add("run", "compute the missing cells (of one shard)")
    r.add_argument("spec", help="sweep spec (TOML)")
    r.add_argument("--store", help="zarr store (default: the spec's 'store')")
    r.add_argument(
        "--shard", type=int, default=0, action=options.Field, help="this shard's index, 0-based"
    )
    r.add_argument("--shards", type=int, default=1, action=options.Field, help="number of shards")
    r.add_argument(
        "--cells",
        metavar="LIST",
        action=options.Field,
        help="run only these flat cells, e.g. 0-3,8,10-11 ('-': read the list from stdin), "
        "sharded by position; relmc sweep submit gives a partly done store's array the cells "
        "missing when it submitted, so that its tasks share them evenly",
    )
    r.add_argument(
        "--dask",
        metavar="ADDRESS",
        action=options.Field,
        field="client",
        help="run on this Dask scheduler (e.g. tcp://host:8786; checked before the store is "
        "written)",
    )
    r.add_argument(
        "--workers", type=int, default=1, action=options.Field, help="local processes across cells"
    )
    r.add_argument("--n-threads", type=int, action=options.Field, help="numba threads per cell")
    r.add_argument(
        "--n-trials",
        type=options.int_at_least(2),
        action=options.Field,
        metavar="N",
        help="override the spec's n_trials (part of the spec's identity: a store made with "
        "another n_trials is refused, as any other spec change)",
    )
    r.add_argument(
        "--claim-lease-seconds",
        type=float,
        action=options.Field,
        metavar="SECONDS",
        help="when another run holds a cell but its heartbeat has stood still this long (a hung "
        "process), compute the cell here (default 300), but never before three of the holder's "
        "own heartbeats (a tenth of its lease each) are missed; results are identical either "
        "way",
    )
    r.add_argument(
        "--pack",
        action="store_true",
        help="if the store is complete at the end of this run, pack it into few files "
        "(relmc sweep pack; with shards, the one that completes the store packs it)",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.set_defaults(func=_run)

    s = add("submit", "submit a Slurm job array (one task per shard)")
    s.add_argument("spec", help="sweep spec (TOML)")
    s.add_argument("--store", help="zarr store (default: the spec's 'store')")
    F = options.Field
    s.add_argument(
        "--array", type=int, action=F, field="slurm.array", help="array tasks (= shards)"
    )
    s.add_argument("--partition", action=F, field="slurm.partition")
    s.add_argument("--account", action=F, field="slurm.account")
    s.add_argument(
        "--time", action=F, field="slurm.time", help="time limit per task, e.g. 02:00:00"
    )
    s.add_argument("--cpus-per-task", type=int, action=F, field="slurm.cpus_per_task")
    s.add_argument(
        "--max-parallel",
        type=int,
        action=F,
        field="slurm.max_parallel",
        help="at most this many tasks at once",
    )
    s.add_argument(
        "--sbatch",
        action=options.FieldAppend,
        field="slurm.extra",
        default=[],
        metavar="OPTION",
        help="extra #SBATCH option, e.g. --sbatch=--mem=4G (repeatable)",
    )
    s.add_argument(
        "--python", action=F, field="slurm.python", help="Python executable of the tasks"
    )
    s.add_argument("--dry-run", action="store_true", help="print the script, submit nothing")
    s.add_argument("--wait", action="store_true", help="wait until every task has finished")
    s.set_defaults(func=_submit)

    st = add("status", "done and missing cells of a store")
    st.add_argument("store")
    st.add_argument("--json", action="store_true", help="machine-readable output")
    st.add_argument(
        "--verify",
        action="store_true",
        help="read every done cell back and check it against its checksum",
    )
    st.set_defaults(func=_status)

    o = add("open", "print the cube of a store: its variables, then ETTR cell by cell")
    o.add_argument("store")
    fmt = o.add_mutually_exclusive_group()
    fmt.add_argument(
        "--netcdf",
        metavar="PATH",
        help="write the whole cube to a netCDF file (atomically; read back with "
        "xarray.open_dataset): an axis that mixes numbers and rules as its labels, the "
        "exact values in its values_json attribute",
    )
    fmt.add_argument(
        "--csv",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print the cube as CSV (or write it to PATH): one row per cell, columns = the "
        "axes, done, n_trials, stopped_by, checkpoint_interval_hours, finished_fraction and "
        "every summary: the *_mean / *_se variables, then those with extra dims a column "
        "per label (lost_hours_mean[straggler], ettr_quantile[0.05]; empty: not done)",
    )
    o.set_defaults(func=_open)

    pk = add("pack", "pack a complete store into few files (read-only afterwards)")
    pk.add_argument("store")
    pk.add_argument(
        "--out",
        metavar="PATH",
        help="write the packed store here (a new path, outside STORE); keep STORE",
    )
    pk.set_defaults(func=_pack)


def _run(args: argparse.Namespace) -> int:
    from relmc import sweep
    from relmc.sweep.spec import resolve_store

    spec = sweep.SweepSpec.from_toml(args.spec)
    if args.n_trials is not None:
        spec = dataclasses.replace(spec, n_trials=args.n_trials)
    cells = None
    if args.cells is not None:
        from relmc.sweep.cells import parse_cells

        text = sys.stdin.read() if args.cells == "-" else args.cells
        cells = parse_cells(text, spec.n_cells)
    done = sweep.run_sweep(
        spec,
        args.store,
        shard=args.shard,
        shards=args.shards,
        client=args.dask,
        workers=args.workers,
        n_threads=args.n_threads,
        progress=False if args.no_progress else None,
        claim_lease_seconds=args.claim_lease_seconds,
        cells=cells,
    )
    store = resolve_store(spec, args.store)
    st = sweep.status(store)
    say(f"computed {len(done)} cells; store: {st}")
    if args.pack and st.complete:
        # what run_sweep(pack=True) does at its end, here so that the report is printed
        say(str(sweep.pack(store)))
    return 0


def _pack(args: argparse.Namespace) -> int:
    from relmc import sweep

    say(str(sweep.pack(args.store, out=args.out)))
    return 0


def _submit(args: argparse.Namespace) -> int:
    from relmc import sweep

    spec = sweep.SweepSpec.from_toml(args.spec)
    over = {k: getattr(args, k) for k in _SLURM_FIELDS if getattr(args, k) is not None}
    if args.sbatch:
        over["extra"] = (*spec.slurm.extra, *args.sbatch)
    opts = dataclasses.replace(spec.slurm, **over)  # submit() checks array <= cells

    def announce(job: str) -> None:  # as soon as Slurm accepts it, also before a --wait
        say(f"submitted job {job}" + (" (waiting for its tasks)" if args.wait else ""))
        sys.stdout.flush()

    out = sweep.submit(
        args.spec,
        store=args.store,
        options=opts,
        dry_run=args.dry_run,
        wait=args.wait,
        on_submit=announce,
    )
    from relmc.sweep.spec import resolve_store

    store = resolve_store(spec, args.store)
    if not out:
        say(f"nothing to submit: {sweep.status(store)}")
        return 0
    if args.dry_run:
        say(out)
        return 0
    if args.wait:  # every task has ended: what the store holds now
        say(f"store: {sweep.status(store, outcomes=True)}")
    return 0


def _init(args: argparse.Namespace) -> int:
    from pathlib import Path

    from relmc._io import write_bytes
    from relmc.cli.inputs import check_out
    from relmc.sweep.spec import spec_template

    path = Path(args.path)
    if path.exists() or path.is_symlink():
        raise ValueError(f"path: {str(path)!r} exists; relmc sweep init never replaces a file")
    outputs = check_out(path.parent, [path.name])
    outputs.what = "path"
    with outputs.stage() as st:
        write_bytes(st.path(path.name), spec_template(path).encode())
    say(
        f"wrote {st.written[0]}; edit it, then 'relmc sweep run {path} --n-trials 64 "
        "--store quick.zarr' for a quick look"
    )
    return 0


def _status(args: argparse.Namespace) -> int:
    from relmc import sweep

    st = sweep.status(args.store, verify=args.verify, outcomes=True)
    if args.json:
        out = {"n_cells": st.n_cells, "done": st.done.tolist(), "missing": st.missing.tolist()}
        out["packed"] = st.packed
        # null: not known (a store made before the variable existed), not "none"
        out["unfinished"] = st.unfinished.tolist() if st.unfinished is not None else None
        out["hopeless"] = st.hopeless.tolist() if st.hopeless is not None else None
        if args.verify:
            out["corrupt"] = st.corrupt.tolist()
            out["unverifiable"] = st.unverifiable.tolist()
        say(json.dumps(out))
    else:
        say(str(st))
    return 0


def _open(args: argparse.Namespace) -> int:
    from relmc import sweep
    from relmc._io import write_bytes

    if args.netcdf == "-":
        raise ValueError("--netcdf: needs a file path (netCDF is binary: not for stdout)")
    outputs = None
    for flag, given in (("--csv", args.csv), ("--netcdf", args.netcdf)):
        if given not in (None, "-"):
            outputs = _file_out(flag, given)
    if args.netcdf is not None:
        assert outputs is not None
        from relmc._io import netcdf_bytes

        cube = sweep.open_sweep(args.store, labels=True, load=True)
        data = netcdf_bytes(cube)
        with outputs.stage() as st:
            write_bytes(st.path(outputs.names[0]), data)
        done = int(cube.done.sum())
        say(f"wrote {st.written[0]} ({done} of {cube.done.size} cells done)")
        return 0
    cube = sweep.open_sweep(args.store)
    if args.csv is None:
        say(str(cube))
        say()
        say(ettr_table(cube))
        return 0
    text = cube_csv(cube)
    if outputs is None:
        sys.stdout.write(text)
        return 0
    with outputs.stage() as st:
        write_bytes(st.path(outputs.names[0]), text.encode())
    say(f"wrote {st.written[0]} ({text.count(chr(10)) - 1} cells)")
    return 0


#: Cells :func:`ettr_table` lists at most (``--csv`` gives every one)
TABLE_CELLS = 40


def ettr_table(cube) -> str:
    """Format a cube's ETTR cell by cell: mean +- SE, the median and outer quantiles, finished.

    At most :data:`TABLE_CELLS` rows, in the cube's C order; a line then says how many more
    there are and where they all are (``--csv``).
    """
    import numpy as np

    from relmc.cli.compare import finished_percent
    from relmc.cli.output import table

    done = cube["done"]
    dims = done.dims
    got = cube[["done", "ettr_mean", "ettr_se", "ettr_quantile", "finished_fraction"]].load()
    q = got["quantile"].values
    lo, hi = int(np.argmin(q)), int(np.argmax(q))
    mid = int(np.argmin(np.abs(q - 0.5)))
    band = f"ETTR q{q[mid]:g} [q{q[lo]:g}, q{q[hi]:g}]"
    rows = []
    for idx in list(np.ndindex(done.shape))[:TABLE_CELLS]:
        labels = [str(got[d].values[i]) for d, i in zip(dims, idx, strict=True)]
        if not bool(got["done"].values[idx]):
            rows.append([*labels, "not done", "", ""])
            continue
        qs = got["ettr_quantile"].values[idx]
        rows.append(
            [
                *labels,
                f"{got['ettr_mean'].values[idx]:.4f} +- {got['ettr_se'].values[idx]:.4f}",
                f"{qs[mid]:.3f} [{qs[lo]:.3f}, {qs[hi]:.3f}]",
                finished_percent(float(got["finished_fraction"].values[idx])),
            ]
        )
    header = [*dims, "ETTR mean +- SE", band, "finished"]
    text = table(header, rows, [True] * len(dims) + [True, True, True])
    more = done.size - len(rows)
    if more > 0:
        text += f"\n... {more:,} more cells (relmc sweep open STORE --csv lists every one)"
    return text


def _file_out(flag: str, given: str):
    """Check, before any work, that option ``flag`` can write the file ``given``.

    Returns its :class:`relmc._io.OutputSet` (errors name ``flag``, not ``--out``). A path
    that names a directory (``.``, ``sub/``, an existing folder) is refused: the option
    takes a file path.
    """
    import os
    from pathlib import Path

    from relmc._io import OutputSet

    path = Path(given)
    seps = (os.sep, os.altsep) if os.altsep else (os.sep,)
    if given.endswith(seps) or path.name in ("", ".", "..") or path.is_dir():
        raise ValueError(
            f"{flag}: {given!r} names a directory; give a file path (e.g. {flag} "
            f"{'cube.nc' if flag == '--netcdf' else 'cube.csv'})"
        )
    outputs = OutputSet(path.parent, [path.name], what=flag)
    outputs.check()
    return outputs


#: Per-cell variables the CSV leads with, after the axes and ``done``: how each cell ran.
CSV_FIRST = ("n_trials", "stopped_by", "checkpoint_interval_hours", "finished_fraction")


def cube_csv(cube) -> str:
    """Return the cube as CSV: one row per cell (C order), the axes, then one value a cell.

    After the axes: ``done``, how the cell ran (``n_trials``, ``stopped_by``, decoded from
    ``stopped_code``, ``checkpoint_interval_hours``: the interval a rule resolved to,
    ``finished_fraction``), then every other variable without extra dims (the ``*_mean``
    and ``*_se`` summaries), then those with extra dims, a column per label as ``relmc
    simulate --csv`` writes them (``lost_hours_mean[straggler]``,
    ``ettr_quantile[0.05]``); not ``cell_checksum``, nor per-trial variables.
    """
    import csv
    import io
    import itertools

    import numpy as np

    from relmc.cli.output import column_label

    axes = [d for d in cube["done"].dims] if "done" in cube else list(cube.dims)
    per_cell = {
        k: np.asarray(v.values).ravel()
        for k, v in cube.data_vars.items()
        if tuple(v.dims) == tuple(axes) and k not in ("done", "cell_checksum", "stopped_code")
    }
    for k, v in cube.data_vars.items():  # per cause, category, quantile: a column per label
        extra = [d for d in v.dims if d not in axes]
        if not extra or "trial" in extra or set(axes) - set(v.dims):
            continue
        width = int(np.prod([v.sizes[d] for d in extra]))
        values = np.asarray(v.transpose(*axes, *extra).values).reshape(-1, width)
        labels = itertools.product(*(cube[d].values.tolist() for d in extra))
        for j, label in enumerate(labels):
            per_cell[f"{k}[{','.join(column_label(x) for x in label)}]"] = values[:, j]
    if "stopped_code" in cube:
        meanings = str(cube["stopped_code"].attrs.get("flag_meanings", "")).split()
        per_cell["stopped_by"] = np.array(
            [
                meanings[c] if 0 <= c < len(meanings) else ""
                for c in cube["stopped_code"].values.ravel().tolist()
            ],
            dtype=object,
        )
    names = [k for k in CSV_FIRST if k in per_cell]
    names += [k for k in per_cell if k not in names]
    grids = np.meshgrid(*(cube[a].values for a in axes), indexing="ij")
    columns = [g.ravel() for g in grids]
    if "done" in cube:  # a cell not done has no values (the store's fill is 0 for integers)
        done = np.asarray(cube["done"].values, bool).ravel()
        columns.append(done)
        columns += [np.where(done, per_cell[k].astype(object), "") for k in names]
        names = ["done", *names]
    else:
        columns += [per_cell[k] for k in names]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*axes, *names])
    for row in zip(*columns, strict=True):
        w.writerow(["" if isinstance(x, float) and x != x else _plain(x) for x in row])
    return buf.getvalue()


def _plain(x):
    return x.item() if hasattr(x, "item") else x
