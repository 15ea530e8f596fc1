"""Sweeps: grids of scenarios → one labelled, resumable zarr cube; local, Dask or Slurm.

A *sweep spec* names a base scenario, grid axes over any dotted scenario field, a posterior
source, trials per cell (``n_trials``) and a root seed. Every cell of the grid is one
:func:`relmc.simulate` call, summarised (means, Monte Carlo standard errors, quantiles,
interruptions per day, lost hours by cause) and written into its own region of a zarr store
that is created up front with all coordinates. A TOML spec looks like::

    seed = 2026                      # root seed (required)
    n_trials = 2000                  # trials per cell
    posterior = "conjugate:llama3-405b"  # or "point", or a netCDF InferenceData path
    n_draws = 2000                   # draws of a conjugate posterior
    keep_trials = false              # also store per-trial data
    quantiles = [0.05, 0.5, 0.95]
    store = "sweep.zarr"             # relative to the spec file; CLI --store overrides

    [base]                           # overrides of Scenario.default().to_dict()
    job.compute_hours = 1296

    [axes]                           # dims of the cube, in this order
    "cluster.n_gpus" = [16384, 65536, 131072]
    "policy.checkpoint_interval" = [0.25, 0.5, "young"]

    [slurm]                          # only for `submit`
    partition = "debug"
    time = "01:00:00"
    array = 4

Determinism
    Cell ``i`` (flat C-order index over the axes) is simulated with seed
    ``child_seed(resolve_seed(seed), i)`` (:mod:`relmc._seed`; for an integer seed that is
    ``SeedSequence(seed, spawn_key=(i,))``), its blocks of 256 trials with ``(i, b)``; the
    conjugate posterior is fitted with seed ``child_seed(root, 2**32 - 3)``
    (:data:`relmc.sweep.cells.POSTERIOR_KEY`), and the overhead multipliers of the policy's
    ``*_spread`` fields come from ``overhead_seed`` = the root, whose stream is its child
    ``2**32 - 2`` (:data:`relmc.sim.simulate.OVERHEAD_KEY`): each posterior draw has one set,
    the same in every cell, as its rates are. No two of these streams meet. The store records
    the root in its attrs
    (``seed_entropy``, ``seed_spawn_key``). Results depend only on (spec, cell), never on how
    cells are spread over threads, processes, shards, Dask workers or Slurm array tasks, so the
    cube is bit-identical however it was run.
Sharding
    Shard ``s`` of ``k`` owns the cells ``s, s + k, s + 2k, ...`` (interleaved, so expensive
    large-cluster cells are spread over shards). Shards are disjoint, so two tasks never write
    the same cell; every cell's arrays are chunked one cell per chunk, so no two cells share a
    zarr chunk either.
Crash safety
    A cell's data variables are written first, then its checksum (``cell_checksum``); its
    ``done`` flag (a bool array, one chunk per cell) is written last. Every chunk is written to
    a temporary file and renamed into place (by :mod:`relmc.sweep.store`, as zarr's local store
    does), so a process killed at any moment (SIGKILL, preemption, a requeued Slurm task) leaves
    each chunk either old or new, and a cell counts as complete only after all of its data is in
    place. A rerun computes only the cells whose flag is unset. (A *machine* crash can still
    lose page-cache data: chunk writes are not fsync'ed; rerun after one.) A failed write (a
    full disk) ends the run with one ``OSError`` naming the store and the cell, which stays not
    done, with no temporary file left; the next run computes it. A process killed between a
    chunk's temporary file and its rename leaves that file (``*.partial``: empty, part of the
    chunk, a kill within its write, or all of it) in the store: reads, reruns and
    ``relmc sweep status --verify`` ignore it and keep it, and
    ``relmc sweep pack`` in place removes it (its file count includes it). Each done cell
    carries a checksum (``relmc sweep status --verify``); a run recomputes a done cell that
    fails it or does not decode, and one without a checksum where the store records them; stores
    made before checksums keep their (decodable) done cells, reported as unverifiable.
Claims
    Concurrent runs on one store split the cells with a per-cell ``flock`` beside the store
    (``.<store>.claims/``): the kernel releases it when its holder dies, and a file nobody
    locks claims nothing, whatever its content or age. A holder refreshes its claim file's
    mtime (a heartbeat, from a daemon thread, every tenth of its lease) while it computes and
    writes the cell. A run that has done its free cells watches the held ones; it takes a cell
    whose holder lets go, and computes a cell whose holder is alive but hung (stopped, or stuck
    on a dead mount: no heartbeat seen for ``claim_lease_seconds``, default 300) itself, after
    one ``StaleClaimWarning`` naming the cell and the holder. No wait is unbounded. When the
    hung holder resumes, it finds the cell done and verified and writes nothing (or, resumed
    in the middle of its write, rewrites the same bytes), so the store stays valid and
    identical. Where the file system has no ``flock`` every claim is taken (with a warning):
    cells may be computed twice, identically.
Packing
    A finished store can be packed (:func:`pack`, ``relmc sweep pack``, or ``run_sweep(...,
    pack=True)`` / ``run --pack``, where the run that completes the store packs it): the same
    coordinates, data, flags, per-cell checksums and attrs (plus ``relmc_sweep_packed``), with
    chunks of whole cells up to 64 MiB uncompressed instead of one per cell, so a store of
    ``n`` arrays is about ``2n + 1`` files whatever the number of cells. Only a complete store
    whose every cell verifies is packed. A checksum is of a cell's values, not of its chunks,
    so ``status --verify`` checks each cell on the packed layout too (reading each chunk
    once) and names the cells of a damaged chunk. A packed store is read-only: a run computes
    nothing on it and refuses, naming the cells, if one of its cells is not done (a flag
    edited by hand). In place, the packed copy is built and verified beside the store, then
    swapped in by two renames under a lock beside the store (two packs of one store: one
    packs, the other finds it packed); a kill at any moment leaves a usable store, and the
    next pack, status, open or run finishes a swap cut between its renames (:func:`pack`
    lists the steps). The claim files are removed: a packed store is never written.
Memory
    A spec whose cells' trials (``n_trials``) cannot fit in the memory available is refused
    when it is built or loaded, before any file is written; :func:`run_sweep` checks again for
    its local worker processes, which hold a cell each.

Modules
    :mod:`~relmc.sweep.spec` (the spec and its validation), :mod:`~relmc.sweep.cells` (posterior
    source, seeds, shards, one cell), :mod:`~relmc.sweep.store` (the zarr cube),
    :mod:`~relmc.sweep.running` (:func:`run_sweep` over one executor interface: in process,
    local processes, Dask) and :mod:`~relmc.sweep.slurm` (sbatch script, submit). The command
    line is ``relmc sweep`` (:mod:`relmc.cli.sweep`).

The store records the canonical spec (JSON) and its SHA-256 in its attrs; a run against a
store created by a different spec is refused, and so is one made before a seeding rule its
cells follow (the attrs ``overhead_seed``, ``posterior_seed``) while cells are left to
compute in it; complete, such a store reruns as a no-op. :func:`spec_template` returns a commented
template spec (package data; what ``relmc sweep init`` writes).
"""

from __future__ import annotations

from relmc.sweep.cells import cell_seed, resolve_rates, shard_cells
from relmc.sweep.running import run_sweep
from relmc.sweep.slurm import sbatch_script, submit
from relmc.sweep.spec import SlurmOptions, SweepSpec, load_spec, spec_template
from relmc.sweep.store import (
    PackResult,
    StaleClaimWarning,
    SweepStatus,
    axes_as_labels,
    init_store,
    open_sweep,
    pack,
    status,
)

__all__ = [
    "SlurmOptions",
    "SweepSpec",
    "SweepStatus",
    "StaleClaimWarning",
    "PackResult",
    "load_spec",
    "spec_template",
    "resolve_rates",
    "cell_seed",
    "shard_cells",
    "init_store",
    "run_sweep",
    "open_sweep",
    "axes_as_labels",
    "status",
    "pack",
    "sbatch_script",
    "submit",
]
