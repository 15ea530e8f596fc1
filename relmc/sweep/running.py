"""Running a sweep: the missing cells of one shard, in this process, in local processes or on Dask.

Every backend implements one small interface, :class:`Executor`: ``run(task, cells, rates)``
computes the given cells and yields how many finished after each step. :func:`executor` is the
one place that picks a backend from :func:`run_sweep`'s arguments, so adding a backend is one
class and one line there. Nothing is kept at module level: the resolved posterior (``rates``)
is passed to every task explicitly, and a task opens its own store writer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from relmc._extras import require
from relmc.errors import FieldError
from relmc.sweep.cells import (
    cell_template,
    check_cells,
    lower_cells,
    resolve_rates,
    shard_cells,
    simulate_cell,
    warn_unread_cells,
)
from relmc.sweep.spec import (
    SweepSpec,
    _check_int,
    check_cell_memory,
    load_spec,
    resolve_store,
)
from relmc.sweep.store import (
    DEFAULT_LEASE_SECONDS,
    CellWriter,
    check_lease_seconds,
    check_same_spec,
    check_variables,
    init_store,
    is_packed,
    recover_pack,
    status,
)
from relmc.sweep.store import pack as pack_store

__all__ = [
    "CellTask",
    "Executor",
    "InProcess",
    "ProcessPool",
    "DaskCluster",
    "executor",
    "run_sweep",
]


#: one step of an executor: (cells finished, cells this run computed)
Step = tuple[int, list[int]]


@dataclass(frozen=True)
class CellTask:
    """What every worker needs to compute and store cells: picklable, with no posterior inside.

    Parameters
    ----------
    spec : SweepSpec
        The sweep (shipped without its cached cell scenarios).
    store : str
        Absolute path of an existing store (workers must see it).
    n_threads : int
        numba threads inside each cell.
    lease_seconds : float
        How long a claim's heartbeat may stand still before this task computes a cell that
        another run holds (``CellWriter.claims()``).
    """

    spec: SweepSpec
    store: str
    n_threads: int
    lease_seconds: float = DEFAULT_LEASE_SECONDS

    def each(self, cells: Sequence[int], rates: Any) -> Iterator[tuple[int, bool]]:
        """Compute and write ``cells`` with the posterior ``rates``; yield ``(cell, computed)``.

        Each cell is claimed first (``CellWriter.claims()``), so concurrent runs on one store
        split the cells. A cell another run holds is passed over and, once every free cell is
        done, waited for: if its holder finished it, it is skipped (``computed`` False); if
        the holder died, or is alive but its heartbeat stood still for ``lease_seconds``
        (hung), this run computes it. A cell found done (and verified) after its claim was
        finished by another run and is skipped too, even when found only at the write.
        """
        writer = CellWriter(Path(self.store), self.spec)
        for flat in writer.claims(cells, lease_seconds=self.lease_seconds):
            yield flat, self._compute(writer, flat, rates)

    def _compute(self, writer: CellWriter, flat: int, rates: Any) -> bool:
        if writer.replaced():
            return False  # packed meanwhile (by the run that completed the store): all done
        if writer.is_done(flat) and writer.verify(flat):
            return False  # another run finished it after our done mask was read
        return writer.write(flat, simulate_cell(self.spec, flat, rates, self.n_threads))

    def __call__(self, cells: Sequence[int], rates: Any) -> list[int]:
        """Compute and write ``cells`` with the posterior ``rates``; return those computed."""
        return [flat for flat, computed in self.each(cells, rates) if computed]


class Executor(Protocol):
    """A way to run cells: after each step, yields ``(cells finished, cells computed)``."""

    def run(self, task: CellTask, cells: Sequence[int], rates: Any) -> Iterator[Step]:
        """Compute ``cells`` with ``task``; yield each step's finished count and computed cells.

        A cell is finished when it is done in the store, by this run or by a concurrent one;
        only the cells this run computed are listed.
        """
        ...


@dataclass(frozen=True)
class InProcess:
    """One cell after the other in this process."""

    def run(self, task: CellTask, cells: Sequence[int], rates: Any) -> Iterator[Step]:  # noqa: D102
        for flat, computed in task.each(cells, rates):
            yield 1, [flat] if computed else []


def _process_batch(
    task: CellTask, cells: Sequence[int], rates: Any, parent: int
) -> tuple[int, list[int], list[Warning]]:
    """Worker-process side of :class:`ProcessPool`: one batch of cells.

    Returns the step and relmc's own warnings raised in the batch (e.g. a
    ``StaleClaimWarning``), for the parent to raise again (:func:`_rewarn`), so the command
    line prints them as its own one-line warnings; other warnings are shown here as before.
    """
    steps = task.each(cells, rates)  # a generator: each next() computes one cell
    computed: list[int] = []
    with warnings.catch_warnings(record=True) as caught:  # the filters stay as they are
        while True:
            if os.getppid() != parent:
                os._exit(1)  # the parent died (e.g. SIGKILL): start no new cells behind its back
            step = next(steps, None)
            if step is None:
                break
            if step[1]:
                computed.append(step[0])
    ours = []
    for w in caught:
        if _is_relmc_warning(w.category):
            ours.append(w.message if isinstance(w.message, Warning) else w.category(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return len(cells), computed, ours


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT in this block (processes started in it inherit that), then restore it."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers are the main thread's; a pool started elsewhere as before
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _is_relmc_warning(category: type[Warning]) -> bool:
    return category.__module__.split(".")[0] == "relmc"


def _rewarn(caught: Sequence[Warning]) -> None:
    """Raise again, in this process, the warnings a worker process returned."""
    for message in caught:
        warnings.warn(message, stacklevel=2)


@dataclass(frozen=True)
class ProcessPool:
    """``workers`` local processes (spawned), each given batches of cells.

    The posterior is pickled once per batch, not once per cell; about four batches per
    worker balance the load while keeping that cost small.
    """

    workers: int
    batches_per_worker: int = 4

    def run(self, task: CellTask, cells: Sequence[int], rates: Any) -> Iterator[Step]:  # noqa: D102
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        n_batches = min(len(cells), self.workers * self.batches_per_worker)
        batches = [list(cells[i::n_batches]) for i in range(n_batches)]
        # spawn, not fork: the parent may already run numba/tqdm threads
        with ProcessPoolExecutor(
            max_workers=min(self.workers, len(cells)), mp_context=mp.get_context("spawn")
        ) as pool:
            # Ctrl-C is the parent's: the workers are spawned (at the submissions) with SIGINT
            # ignored, which a new Python keeps, so none prints a KeyboardInterrupt traceback
            # of its own; the parent ends them below
            with _sigint_ignored():
                futures = [
                    pool.submit(_process_batch, task, b, rates, os.getpid()) for b in batches
                ]
            try:
                for f in as_completed(futures):
                    n, computed, caught = f.result()
                    _rewarn(caught)
                    yield n, computed
            except KeyboardInterrupt:
                # a cell being written is left not done, as after a SIGKILL; the next run
                # computes it
                for p in mp.active_children():
                    p.terminate()
                pool.shutdown(wait=True, cancel_futures=True)
                raise


#: seconds a sweep waits to reach a Dask scheduler given by its address before it gives up
CONNECT_SECONDS = 30.0


@dataclass(frozen=True)
class DaskCluster:
    """One Dask task per cell on a ``distributed.Client`` (or a scheduler address).

    The posterior is scattered to every worker once; task keys name the spec and the cell, so
    a resubmitted cell is recognised by the scheduler.
    """

    client: Any

    def __post_init__(self) -> None:
        distributed = require("distributed")  # before any work if the 'sweep' extra lacks it
        if isinstance(self.client, str):
            try:
                distributed.comm.parse_address(self.client)
                distributed.comm.resolve_address(self.client)
            except (ValueError, TypeError, OSError) as e:
                raise FieldError(
                    "client", f"client: {self.client!r} is not a Dask scheduler address ({e})"
                ) from None
        elif not all(callable(getattr(self.client, m, None)) for m in ("submit", "scatter")):
            # what run() calls: refused here, before the store is written
            raise FieldError(
                "client",
                "client must be a distributed.Client (with submit and scatter) or a Dask "
                f"scheduler address such as 'tcp://host:8786'; got {self.client!r}",
            )

    def check(self) -> None:
        """Connect to a scheduler given by its address once, before the store is written.

        A scheduler that cannot be reached is a ``FieldError`` on ``client`` (the CLI's
        ``--dask``), not a store made for nothing.
        """
        if not isinstance(self.client, str):
            return
        distributed = require("distributed")
        try:
            distributed.Client(self.client, timeout=CONNECT_SECONDS).close()
        except (OSError, TimeoutError) as e:
            raise FieldError(
                "client",
                f"client: cannot reach a Dask scheduler at {self.client!r} within "
                f"{CONNECT_SECONDS:g} s ({type(e).__name__}: {e})",
            ) from None

    def run(self, task: CellTask, cells: Sequence[int], rates: Any) -> Iterator[Step]:  # noqa: D102
        distributed = require("distributed")
        own = isinstance(self.client, str)
        client = distributed.Client(self.client) if own else self.client
        try:
            key = task.spec.sha256()[:16]
            rates_f = rates if rates is None else client.scatter(rates, broadcast=True)
            futures = [
                client.submit(task, [flat], rates_f, key=f"relmc-sweep-{key}-{flat}")
                for flat in cells
            ]
            for f in distributed.as_completed(futures):
                yield 1, list(f.result())
        finally:
            if own:
                client.close()


def executor(*, client: Any = None, workers: int = 1) -> Executor:
    """Return the backend for :func:`run_sweep`'s ``client`` and ``workers`` arguments."""
    if client is not None:
        return DaskCluster(client)
    if workers > 1:
        return ProcessPool(workers)
    return InProcess()


def _default_threads() -> int:
    env = os.environ.get("SLURM_CPUS_PER_TASK")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_sweep(
    spec: SweepSpec | Mapping[str, Any] | str | os.PathLike,
    store: str | os.PathLike | None = None,
    *,
    shard: int = 0,
    shards: int = 1,
    client=None,
    workers: int = 1,
    n_threads: int | None = None,
    progress: bool | None = None,
    claim_lease_seconds: float | None = None,
    pack: bool = False,
    cells: Sequence[int] | None = None,
) -> list[int]:
    """Compute the missing cells of one shard of a sweep and write them to the store.

    Parameters
    ----------
    spec : SweepSpec, mapping or path
        The sweep; validated in full (every cell's scenario built) before anything is written.
    store : path, optional
        zarr store; created if missing (default: the spec's ``store``).
    shard, shards : int
        Run only cells ``shard, shard + shards, ...`` (see ``shard_cells()``); with
        ``cells``, the entries ``shard, shard + shards, ...`` of that list.
    client : distributed.Client or str, optional
        Run the cells as Dask tasks on this client (or scheduler address); workers must see
        the store's path. Works with dask-jobqueue's ``SLURMCluster``. Anything else (no
        ``submit`` and ``scatter``) is a ``ValueError`` on ``client`` before the store is made.
    workers : int
        Local worker processes across cells (1: in this process). Ignored with ``client``.
    n_threads : int, optional
        numba threads inside each cell; default: the CPUs of this process
        (``SLURM_CPUS_PER_TASK`` under Slurm) divided by ``workers``.
    progress : bool, optional
        Progress bar; default: only when stderr is a terminal.
    claim_lease_seconds : float, optional
        Concurrent runs on one store split the cells with per-cell claims; a holder refreshes
        its claim's heartbeat while it computes. A cell whose holder's heartbeat has stood
        still this long (the holder is hung: stopped, or stuck on a dead mount) is computed
        by this run too, after a ``StaleClaimWarning`` (the same bytes; the store stays
        valid). Seconds in [0.5, 86400]; default 300 (``relmc.sweep.store``'s
        ``DEFAULT_LEASE_SECONDS``). A holder beats every tenth of its own lease, and no run
        takes a cell before its holder has missed 3 beats, whatever its own lease.
    pack : bool
        When this run finds the store complete at its end, pack it (``relmc.sweep.pack``:
        few files, read-only). With shards, whichever finishes last packs; packs of one
        store take a lock, so one packs and the others find it packed. A packed store is
        never written: a run on it computes nothing, and refuses (``ValueError``) if a cell
        of its shard is not done or fails verification.
    cells : sequence of int, optional
        Run only these flat cells (distinct, in ``[0, n_cells)``; :func:`relmc.sweep.submit`
        passes those missing when it submitted, so a partly done store's array tasks share
        the rest evenly), sharded by position: entries ``shard, shard + shards, ...``.

    Returns
    -------
    list of int
        Flat indices of the cells computed and written by this call, sorted. Complete cells
        are skipped (a done cell that fails verification is recomputed, see
        ``CellWriter.verify()`` (in ``relmc.sweep.store``) for cells without a checksum), and
        so are cells a concurrent run on the same store claimed and finished.

    Warns
    -----
    relmc.errors.NotFinishedWarning
        When cells computed by this call have trials the wall-clock cap stopped
        (``finished_fraction < 1``): their summaries are bounds.

    Raises
    ------
    ValueError
        Bad input, before anything is written; a ``FieldError`` on ``n_trials`` when
        ``workers`` cells of ``n_trials`` trials cannot fit in the memory available.
    OSError
        A failed write (e.g. a full disk): one message naming the store and the cell, which
        is left not done for the next run.
    """
    spec = load_spec(spec)
    for module in ("zarr", "dask.array"):  # the 'sweep' extra, checked before any work
        require(module)
    store = resolve_store(spec, store)
    if cells is None:
        cells = shard_cells(spec.n_cells, shard, shards)
    else:  # a list of cells (e.g. those missing when a Slurm array was submitted), sharded
        listed = check_cells(cells, spec.n_cells)
        cells = [listed[i] for i in shard_cells(len(listed), shard, shards)]
    _check_int("workers", workers, 1, 1024)
    lease = DEFAULT_LEASE_SECONDS if claim_lease_seconds is None else claim_lease_seconds
    lease = check_lease_seconds(lease, "claim_lease_seconds")
    if client is None and workers > 1:  # local workers hold a cell each, all at once
        check_cell_memory(spec, at_once=min(workers, len(cells)))
    if n_threads is None:
        n_threads = max(1, _default_threads() // workers)
    _check_int("n_threads", n_threads, 1, 4096)
    backend = executor(client=client, workers=workers)
    if isinstance(backend, DaskCluster):
        backend.check()  # a scheduler that cannot be reached: before the store is written
    recover_pack(store)  # a pack killed between its two renames is finished first
    existed = store.exists()
    if existed:
        check_same_spec(spec, store)  # before any (possibly slow) posterior work
        if is_packed(store):
            _check_packed_shard(store, cells)
            return []  # complete and read-only: nothing to compute, nothing to pack
    rates = resolve_rates(spec)  # once per run; every task gets it explicitly
    # one cell's variables (and every cell lowered: bad cells fail here); a store made by
    # another relmc version that lacks one is refused before any cell is computed
    labels = lower_cells(spec, rates)
    template = cell_template(spec, rates)
    warn_unread_cells(spec, labels)
    if existed:  # checked above (an old rule's store read back once, not twice)
        check_variables(store, template)
    else:  # another task may have made it since: init_store checks it then
        init_store(spec, store, rates=rates, template=template)
    writer = CellWriter(store, spec)
    done = writer.done_mask()
    # a done cell whose data no longer match its checksum (a damaged chunk) is recomputed
    damaged = set(writer.failed_verification([c for c in cells if done[c]]))
    todo = [c for c in cells if not done[c] or c in damaged]
    computed = _compute_cells(
        spec, store, todo, backend, rates, n_threads, lease, shard, shards, progress
    )
    _warn_not_finished(spec, store, computed)
    if pack and status(store).complete:
        pack_store(store)  # under the pack lock; a no-op if another shard packed it first
    return computed


def _warn_not_finished(spec: SweepSpec, store: Path, cells: Sequence[int]) -> None:
    """Warn (:class:`~relmc.errors.NotFinishedWarning`) of cells with unfinished trials.

    Cells computed with trials the wall-clock cap or the event budget stopped
    (``finished_fraction < 1``) hold bounds, as :func:`relmc.project` warns of its sizes.
    """
    if not cells:
        return
    from relmc.errors import NotFinishedWarning
    from relmc.sweep.store import open_sweep

    cube = open_sweep(store)
    share = cube["finished_fraction"].values.ravel()
    short = [c for c in cells if share[c] < 1.0]
    if not short:
        return
    first = ", ".join(f"{k} = {v!r}" for k, v in spec.cell_values(short[0]).items())
    which = (
        "the cell computed has"
        if len(cells) == 1
        else f"{len(short)} of the {len(cells)} cells computed have"
    )
    warnings.warn(
        f"sweep: {which} trials that did not finish, stopped by the wall-clock cap or the "
        "event budget (policy.wall_cap_factor, policy.max_events; finished_fraction < 1; "
        f"the first: {first}): their ETTR and lost time are measured where they stopped, so "
        "they are bounds, not estimates",
        NotFinishedWarning,
        stacklevel=3,
    )


def _check_packed_shard(store: Path, cells: Sequence[int]) -> None:
    """Refuse (``ValueError``) to run a packed store in which a cell of ``cells`` is not done.

    ``pack`` packs only complete, verified stores, so that means a hand-edited flag or a
    damaged chunk; a packed store is never written.
    """
    st = status(store, verify=True)
    bad = sorted(set(map(int, cells)) - set(st.done.tolist()))
    if bad:
        raise ValueError(
            f"sweep store {str(store)!r} is packed (read-only) but cells {bad[:20]} of this "
            "shard are not done or fail verification (a flag edited by hand, or a damaged "
            "chunk); a packed store is never written: run the spec into a new store"
        )


def _compute_cells(
    spec: SweepSpec,
    store: Path,
    todo: list[int],
    backend: Executor,
    rates: Any,
    n_threads: int,
    lease: float,
    shard: int,
    shards: int,
    progress: bool | None,
) -> list[int]:
    """Run ``todo`` on ``backend``; return the cells this run computed, sorted."""
    if not todo:
        return []
    task = CellTask(spec, str(store), n_threads, lease)
    bar = _progress_bar(len(todo), progress, f"sweep shard {shard}/{shards}")
    computed: list[int] = []
    try:
        for n, cells_done in backend.run(task, todo, rates):
            computed += cells_done
            bar(n)
    finally:
        bar(None)
    return sorted(computed)


def _progress_bar(total: int, progress: bool | None, desc: str) -> Callable[[int | None], None]:
    from tqdm.auto import tqdm

    # disable=None: tqdm turns itself off when stderr is not a terminal
    t = tqdm(
        total=total, desc=desc, unit="cell", disable=None if progress is None else not progress
    )

    def update(n: int | None) -> None:
        if n is None:
            t.close()
        else:
            t.update(n)

    return update
