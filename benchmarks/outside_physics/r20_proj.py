"""Twentieth round: SIGKILLs between a sweep chunk's temporary file and its rename, ``relmc
sweep submit --wait`` across ``scontrol requeue``, ``--max-parallel`` below the node's CPUs, an
SDC with its own ``bad_node_multiplier`` on a frailty event fit, ``sdc_latency_spread`` with
the node model, ``relmc fit --counts --observed-maintenance --fleet`` and ``relmc optimize
--posterior`` of files that record planned maintenance.

Written from the documents only: ``relmc.sweep``'s module docstring ("Crash safety": "Every
chunk is written to a temporary file and renamed into place ..., so a process killed at any
moment (SIGKILL, ...) leaves each chunk either old or new, and a cell counts as complete only
after all of its data is in place. A rerun computes only the cells whose flag is unset"; "A
failed write ... with no temporary file left"), the README ("Sweeps are resumable and
verifiable", "A finished sweep packs into few files, safely", "A requeued task (``scontrol
requeue``, preemption) redoes only its unfinished cells; Slurm itself holds a requeued task a
while"), ``relmc sweep submit --help`` ("--wait  wait until every task has finished"; "With
--wait, a task that failed or was cancelled ends the command with exit status 1"),
``relmc.sweep.submit``' (``wait``: "``sbatch --wait``: return when every task has finished"),
``SlurmOptions``' (``max_parallel``: "At most this many array tasks at once
(``--array=0-N%M``)"), the contract (``relmc.sim``: "Stragglers and silent data corruption"
resolution 10, "Nodes", "Physics parameters per draw", "Uncertain overheads"), ``Category``'s
(``bad_node_multiplier``: "``None`` (the default) takes the failure model's"),
``Policy``'s (``sdc_latency_spread``: "every SDC category's ``sdc_latency_hours`` (a fixed
latency, or the mean of an exponential one)"), ``relmc.simulate``'s (``overhead_seed``:
"default: ``seed``"), ``physics_draws``' ("variables of :data:`PHYSICS_VARIABLES` that it lacks
are ``None``"; "a category the posterior lacks takes the scenario's own value (for
``bad_node_multiplier``, the category's or else the model's)"), ``relmc.models.events``'
("``frailty_variance`` ... is reported but not simulated ... a simulation of a
``nodes="frailty"`` fit runs every node at ``rate``, the mean over nodes ... and warns so"),
``fit_fleets``', ``load_counts``' (``maintenance_count``), ``relmc fit --help``
(``--observed-maintenance``, "Several fleets at once"), ``relmc project --help`` /
``relmc optimize --help`` (``--posterior NC``: "its categories, rates and recorded
maintenance"; ``--maintenance-rate``: "default: the rate the data or fit record") and
``relmc.optimize_checkpoint``'s. Source bodies, ``_kernels*.py``, ``reference.py``,
``inputs.py`` and ``tests/`` not read. No new simulator: the node trials with SDC
``r5_indep.run_r5(node=True)`` (with per-draw overhead factors ``F``, ``overhead_factors``),
Lambda(N) and f ``r8_mttf.Mine``, the command line ``r9_cli.cli`` / ``diff_vars``, the node
spec ``r17_proj._node_spec_of`` / ``_policy_diff``, ``r18_proj`` (``_thin``, ``_cat_diff``,
``sub_toml``, ``Submission``, ``_squeue``, ``_status``, ``_wait_cells``, ``_task_logs``,
``_dry_run``, ``_script``, ``_sweep_run``, ``_fresh``), ``r19_proj._added`` / ``Inotify``,
``r16_proj.api_cube``, the report ``r10_proj.mode_main``. New here: kills timed on inotify's
``IN_CREATE`` / ``IN_CLOSE_WRITE`` of a temporary file (the watcher raised to ``SCHED_FIFO``
on the child's core while it waits, so the kill lands before the child's next system call).

Modes:

killtmp       6-cell point-rate sweep with ``keep_trials`` (200,000 trials a cell): a cell's
              writes surveyed by inotify (temporary files, their renames); ``relmc sweep run
              --cells K`` SIGKILLed at the creation of a per-trial chunk's temporary file, at
              its close (written, not renamed), at the creation of the ``done`` flag's and at
              its close; the temporary files left, ``status --verify``, ``open_sweep``, a
              rerun, ``pack --out`` and an in-place ``pack``: each final cube = in process
              (bit).
waitrequeue   ``relmc sweep submit --array 2 --wait`` with ``scontrol requeue JOB_0`` once a
              cell of task 0 is done: when ``--wait`` returns (against the requeued task's
              end), its exit status and message, the store then and at the end (bit).
maxpar        K = CPUs - 1 (1 on the 2-CPU node): ``--dry-run`` ``%K`` (CLI = API script,
              the ``[slurm]`` table and the flag over it), ``--wait`` with ``squeue`` every
              0.2 s: at most K running, ``JobArrayTaskLimit``, tasks' running spans disjoint;
              the control without the limit; the cubes (bit).
sdcfrail      a ``nodes="frailty"`` event fit cut to one draw of each chain; the scenario's
              lemons (0.15 x 4) and an SDC with ``bad_node_multiplier = 12``: the one
              ``frailty_variance`` note, ``physics_draws``' lemon rows None, ``relmc simulate
              TOML --posterior`` = ``simulate`` (bit); per draw vs ``run_r5``; negatives the
              SDC at the model's 4, the fit's categories at 1, the lemons off.
sdcspread     ``sdc_latency_spread = 3`` with the node model: point rates (fixed latency;
              indep with a fresh factor a trial) and the frailty file (exponential latency;
              indep with draw d's factor ``overhead_factors(..)[d]``); negatives a fixed
              latency of the same mean, the spread ignored, the other draw's factor, a factor
              per trial.
fitfleetmaint ``relmc fit --counts C --observed-gpus 4096 --observed-hours 720
              --observed-maintenance 18 --fleet rsc-1 --fleet other.csv:8192:2000``: the
              printed line, the posterior's and ``rate``'s attrs, = ``fit_fleets`` of
              ``load_counts(maintenance_count=18)`` (bit); ``relmc project --posterior`` =
              with ``--maintenance-rate 0.025`` (bit), = the API (bit), with 0 not.
optmaint      ``relmc optimize --posterior`` of the fleets file and of a conjugate
              ``--observed-maintenance`` file: = with ``--maintenance-rate`` the record (bit), =
              ``optimize_checkpoint(file, default_scenario + flags)`` (bit), with 0 not; the
              scenario attr's rate.

    taskset -c 1 python benchmarks/outside_physics/r20_proj.py MODE [--seed S] [--n-indep N]
        [--n-sim N] [--iseed I] [--smoke] [--out DIR]

The independent seeds depend on the draw / variant and ``--iseed``, not on ``--seed``; fits
are cached in ``--out`` and do not depend on ``--seed``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

import relmc
from relmc.projection import default_scenario
from relmc.rates import job_rates, maintenance_rate, physics_draws, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
import r10_proj as R10  # noqa: E402
import r15_proj as R15  # noqa: E402
import r16_proj as R16  # noqa: E402
import r17_proj as R17  # noqa: E402
import r18_proj as R18  # noqa: E402
import r19_proj as R19  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")
CHUNK = re.compile(r"c(\.\d+)*|zarr\.json")


def _tv(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)


def _node_cpus():
    r = subprocess.run(["scontrol", "show", "node"], capture_output=True, text=True)
    m = re.search(r"CPUTot=(\d+)", r.stdout)
    return int(m.group(1)) if m else None


def _base(py1):
    return ["--partition", "debug", "--cpus-per-task", "1", "--time", "00:20:00", "--python",
            str(py1)]  # fmt: skip


# ---------------------------------------------------------------- 1: SIGKILL before a rename
class Watch(R19.Inotify):
    """``R19.Inotify`` on every folder of a store with creations, closes and both halves of a
    rename."""

    IN_MOVED_FROM = 0x40

    def __init__(self, st):
        import ctypes

        self.libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK)
        assert self.fd >= 0
        self.wd = {}
        mask = self.IN_CREATE | self.IN_MOVED_TO | self.IN_CLOSE_WRITE | self.IN_MOVED_FROM
        for d in [Path(st), *sorted(p for p in Path(st).rglob("*") if p.is_dir())]:
            w = self.libc.inotify_add_watch(self.fd, str(d).encode(), mask)
            self.wd[w] = str(d.relative_to(Path(st))) if d != Path(st) else "."


def _temps(st):
    """Files of the store that are neither a chunk (``c.i.j...``) nor ``zarr.json``, with
    their sizes."""
    return sorted((str(p.relative_to(st)), p.stat().st_size) for p in Path(st).rglob("*")
                  if p.is_file() and not CHUNK.fullmatch(p.name))  # fmt: skip


def _fifo(on):
    """This process at ``SCHED_FIFO`` 10 (``on``) or back at ``SCHED_OTHER``; False if
    refused."""
    try:
        if on:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        else:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        return True
    except (PermissionError, OSError, AttributeError):
        return False


def watched_run(toml, st, cell, kill_at=None):
    """``relmc sweep run --cells CELL`` as a child on core 1, watched by inotify; with
    ``kill_at = (folder, event)`` SIGKILL at the first such event on a temporary file in
    that folder. Returns the events seen and what was left."""
    ino = Watch(st)
    cmd = ["taskset", "-c", "1", "relmc", "sweep", "run", str(toml), "--store", str(st),
           "--cells", str(cell), "--n-threads", "1", "--no-progress"]  # fmt: skip
    p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    fifo = _fifo(True)  # after the fork: the child keeps SCHED_OTHER
    ev, hit = [], None
    names = {0x100: "create", 0x8: "close", 0x40: "from", 0x80: "to"}
    try:
        while True:
            got = ino.read(0.05)
            for d, mask, name in got:
                kind = next((v for k, v in names.items() if mask & k), hex(mask))
                ev.append((d, kind, name))
                if (kill_at and hit is None and d == kill_at[0] and kind == kill_at[1]
                        and not CHUNK.fullmatch(name)):  # fmt: skip
                    os.kill(p.pid, signal.SIGKILL)
                    hit = (d, kind, name, len(ev))
            if not got and p.poll() is not None:
                break
    finally:
        _fifo(False)
    out, err = p.communicate()
    for d, mask, name in ino.read(0.01):
        ev.append((d, next((v for k, v in names.items() if mask & k), hex(mask)), name))
    ino.close()
    return dict(rc=p.returncode, ev=ev, hit=hit, fifo=fifo, out=out, err=err)


def _cell_files(st, key):
    return sorted(f"{d.name}/{f.name}" for d in Path(st).iterdir() if d.is_dir()
                  for f in d.iterdir() if f.name == key or f.name.startswith(key + ".")
                  and CHUNK.fullmatch(f.name))  # fmt: skip


def run_killtmp(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    n = 200_000 if not a.smoke else 40_000
    toml = a.out / f"kt20_{S}.toml"
    toml.write_text(
        f'seed = {S}\nn_trials = {n}\nposterior = "point"\nkeep_trials = true\n'
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/kt20_default.zarr"\n\n[base]\n'
        "cluster.n_gpus = 64\njob.compute_hours = 24.0\npolicy.checkpoint_interval = 0.5\n\n"
        '[[base.failures.categories]]\nname = "crash"\nrate = 0.2\nunit = "job"\n\n[axes]\n'
        + "".join(f'"{k}" = {v}\n' for k, v in R18.SUB_AXES.items())
    )  # fmt: skip
    sp = SweepSpec.from_toml(toml)
    cube = R16.inproc_cube(a, sp, "kt20", "killtmp", neg)
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    keyof = lambda i: "c." + ".".join(map(str, np.unravel_index(i, sp.shape)))  # noqa: E731
    st = a.out / f"kt20_kill_{S}.zarr"
    R18._fresh(st)
    R18._sweep_run([toml, "--store", st, "--cells", "4"], "--cells 4 (creates the store)")
    # a whole cell's writes
    full = watched_run(toml, st, 5)
    ev = full["ev"]
    tmp_created = [(d, nm) for d, k, nm in ev if k == "create" and not CHUNK.fullmatch(nm)]
    renamed = [(d, nm) for d, k, nm in ev if k == "to"]
    pairs = sum(1 for i, (d, k, nm) in enumerate(ev) if k == "from" and i + 1 < len(ev)
                and ev[i + 1][1] == "to" and ev[i + 1][0] == d)  # fmt: skip
    order = [d for d, _ in renamed]
    print(f"  a whole cell (5): rc {full['rc']}; {len(tmp_created)} temporary files created, "
          f"{len(renamed)} renames into place ({pairs} as from/to pairs in one folder); e.g. "
          f"{tmp_created[:2]}; renamed first {order[:3]}, last {order[-4:]}; SCHED_FIFO "
          f"{full['fifo']}; files left {_temps(st)}")  # fmt: skip
    ck[
        "survey: every chunk of a cell goes through a temporary file renamed in its folder; "
        "none left after a whole run"
    ] = full["rc"] == 0 and len(tmp_created) == len(renamed) == pairs and not _temps(st)
    pertrial = [d for d in order if d in tv]
    kills = {0: (pertrial[0], "create"), 1: (pertrial[len(pertrial) // 2], "close"),
             2: ("done", "create"), 3: ("done", "close")}  # fmt: skip
    rec, inside = {}, 0
    for cell, (fold, kind) in kills.items():
        k = watched_run(toml, st, cell, (fold, kind))
        rec[cell] = k
        key = keyof(cell)
        files = _cell_files(st, key)
        left = _temps(st)
        flag = f"done/{key}" in files
        target_in = any(f.startswith(fold + "/") for f in files)
        this = [t for t in left if t[0].startswith(fold + "/")]
        k.update(files=files, left=left, flag=flag, target_in=target_in)
        ok = k["rc"] == -9 and k["hit"] is not None and not flag and not target_in and bool(this)
        inside += ok
        tos = [(d, nm) for d, kk, nm in k["ev"][k["hit"][3] :] if kk == "to"] if k["hit"] else []
        print(f"  SIGKILL cell {cell} at the {kind} of {fold}'s temporary file: rc {k['rc']}; "
              f"hit {k['hit'][:3] if k['hit'] else None}; renames after it {tos}; the cell's "
              f"chunks in place {len(files)}; {fold}'s chunk in place {target_in}; done flag "
              f"{flag}; temporary files now {left}")  # fmt: skip
    ck[
        "[SIGKILL] 4 kills (create / close of a per-trial chunk's temporary file, of the done "
        "flag's): killed before the rename (rc -9, no rename after, the temporary file left, "
        "the chunk and the flag not in place)"
    ] = inside == len(kills)
    sizes = {c: [s for nm, s in k["left"] if nm.startswith(kills[c][0] + "/")]
             for c, k in rec.items()}  # fmt: skip
    print(f"  temporary files' sizes by kill: {sizes}")
    done, miss, corrupt = R18._status(st, verify=True)
    print(f"  status --verify after the kills: done {done}, missing {miss}, corrupt {corrupt}")
    ck["[SIGKILL] status --verify: the 4 killed cells missing, none corrupt, 4 and 5 done"] = (
        miss == [0, 1, 2, 3] and not corrupt and done == [4, 5])  # fmt: skip
    r = subprocess.run(["relmc", "sweep", "status", str(st), "--verify"], env=ENV,
                       capture_output=True, text=True)  # fmt: skip
    print(f"  $ relmc sweep status --verify: rc {r.returncode}: "
          f"{(r.stdout + r.stderr).strip()[-500:]!r}")  # fmt: skip
    try:
        part = relmc.sweep.open_sweep(st, load=True)
        b2, m2 = C9.diff_vars(cube, part)
        neg[("killtmp", "SIGKILL", "the store after the kills == in-process cube")] = (
            not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ")  # fmt: skip
        ck["[SIGKILL] open_sweep reads the store with the temporary files in it"] = True
    except Exception as e:  # noqa: BLE001 (recorded)
        print(f"  open_sweep after the kills: {type(e).__name__}: {e}")
        ck["[SIGKILL] open_sweep reads the store with the temporary files in it"] = False
    left_before = _temps(st)
    r = R18._sweep_run([toml, "--store", st], "rerun")
    m = re.search(r"computed (\d+) cells", r.stdout + r.stderr)
    left_after = _temps(st)
    print(f"  temporary files before the rerun {len(left_before)}, after {left_after}")
    ck["[rerun] relmc sweep run rc 0, computes exactly the 4 killed cells, no warning"] = (
        r.returncode == 0 and m is not None and int(m.group(1)) == 4
        and "warning" not in r.stderr.lower())  # fmt: skip
    print(
        f"  observation (the documents are silent): the rerun "
        f"{'removed' if not left_after else 'left'} the killed runs' temporary files "
        f"({len(left_before)} before, {len(left_after)} after)"
    )
    done, miss, corrupt = R18._status(st, verify=True)
    ck["[rerun] status --verify: all done, none corrupt"] = (
        not miss and not corrupt and len(done) == sp.n_cells)  # fmt: skip
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    print(f"  [rerun] differing {bad}; missing {miss}")
    ck["[rerun] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)
    # pack: a copy, then in place
    pk = a.out / f"kt20_packed_{S}.zarr"
    shutil.rmtree(pk, ignore_errors=True)
    r = subprocess.run(["taskset", "-c", "1", "relmc", "sweep", "pack", str(st), "--out", str(pk)],
                       env=ENV, capture_output=True, text=True)  # fmt: skip
    print(f"  $ relmc sweep pack STORE --out P: rc {r.returncode}: "
          f"{(r.stdout + r.stderr).strip()[-300:]!r}; temporary files in the copy "
          f"{_temps(pk) if pk.exists() else None}")  # fmt: skip
    if r.returncode == 0:
        bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(pk, load=True))
        ck["[pack --out] rc 0; the copy == in-process cube (bit), no temporary file in it"] = (
            not (bad or miss) and not _temps(pk))  # fmt: skip
    else:
        ck["[pack --out] rc 0; the copy == in-process cube (bit), no temporary file in it"] = False
    r = subprocess.run(["taskset", "-c", "1", "relmc", "sweep", "pack", str(st)], env=ENV,
                       capture_output=True, text=True)  # fmt: skip
    nfiles = sum(1 for p in st.rglob("*") if p.is_file())
    print(f"  $ relmc sweep pack STORE: rc {r.returncode}: "
          f"{(r.stdout + r.stderr).strip()[-300:]!r}; files {nfiles}; temporary files "
          f"{_temps(st)}")  # fmt: skip
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    ck["[pack in place] rc 0; the store == in-process cube (bit)"] = (
        r.returncode == 0 and not (bad or miss))  # fmt: skip
    return ck, neg, {}


# ---------------------------------------------------------------- 2: --wait across a requeue
TERMINAL = (
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "OUT_OF_MEMORY",
    "NODE_FAIL",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
)


def run_waitrequeue(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    if not R18.slurm_up():
        return {"local Slurm is up": False}, neg, {}
    py1 = R18.py_core1(a)
    n_heavy = 50_000 if not a.smoke else 30_000
    toml = R18.sub_toml(a, f"wr20_{S}", S, n_heavy, 20_000.0)
    sp = SweepSpec.from_toml(toml)
    cube = R16.api_cube(a, sp, f"wr20_inproc_{S}")
    print(f"in process: {sp.n_cells} cells; mean ETTR {np.round(cube['ettr_mean'].values, 4)}")
    st = a.out / f"wr20_{S}.zarr"
    R18._fresh(st)
    s = R18.Submission([toml, "--store", st, "--array", 2, *_base(py1), "--wait"], "wait")
    t_sub = time.time()
    print(f"  submitted: first line {s.first.strip()!r} ({time.time() - s.t0:.1f}s); job {s.job}")
    ck["--wait prints the job id as soon as Slurm accepts it"] = s.job is not None
    own0 = [i for i in range(sp.n_cells) if i % 2 == 0]
    done_at = R18._wait_cells(st, own0)
    left = sorted(set(own0) - set(done_at or []))
    rq = subprocess.run(["scontrol", "requeue", f"{s.job}_0"], capture_output=True, text=True)
    t_rq = time.time()
    print(
        f"  scontrol requeue {s.job}_0 ({t_rq - t_sub:.1f}s after the submission): rc "
        f"{rq.returncode} {rq.stderr.strip()!r}; done {done_at}, task 0's left {left}"
    )
    ck["task 0 requeued mid-run (rc 0; a cell of its shard done, another not)"] = (
        rq.returncode == 0 and bool(done_at) and bool(left))  # fmt: skip
    states, t_exit, at_exit, t_gone, t_live = [], None, None, None, None
    while time.time() - t_rq < 420:
        q = R18._squeue("%i %T %r", s.job, "all")
        if any(x.split()[0] == f"{s.job}_0" and x.split()[1] not in TERMINAL for x in q):
            t_live = time.time()  # the requeued task last seen not finished
        if q and (not states or states[-1][1] != q):
            states.append((round(time.time() - t_rq, 1), q))
        if t_exit is None and s.p.poll() is not None:
            t_exit = time.time()
            at_exit = (R18._status(st), q)
            print(f"  relmc sweep submit --wait exited {t_exit - t_rq:.1f}s after the requeue "
                  f"(rc {s.p.returncode}); the store then (done, missing): "
                  f"{at_exit[0][:2]}; squeue then {q}")  # fmt: skip
        if not q and t_gone is None:
            t_gone = time.time()
        if t_gone is not None and t_exit is not None:
            break
        time.sleep(0.3)
    s.wait()
    print(f"  task states since the requeue: {states}")
    print(
        f"  job gone from squeue {None if t_gone is None else round(t_gone - t_rq, 1)}s after "
        f"the requeue; --wait exited {None if t_exit is None else round(t_exit - t_rq, 1)}s"
    )
    print(
        f"  the requeued task last seen unfinished "
        f"{None if t_live is None else round(t_live - t_rq, 1)}s after the requeue"
    )
    ck["--wait returned only after the requeued task had run again to a final state (the "
       "store complete when it returned)"] = bool(
        t_exit is not None and t_live is not None and t_exit >= t_live
        and at_exit is not None and not at_exit[0][1])  # fmt: skip
    ck["--wait: exit status 0 (no task failed or was cancelled at its end)"] = s.rc == 0
    logs, nc = R18._task_logs(st)
    print(f"  logs { {k: v.strip()[-300:] for k, v in logs.items()} }")
    l0 = next((v for k, v in logs.items() if k.endswith("_0.out")), "")
    m0 = re.findall(r"computed (\d+) cells", l0)
    ck["the requeued task's log: it computed only the cells unfinished at the requeue"] = (
        bool(m0) and int(m0[-1]) == len(left))  # fmt: skip
    if t_gone is None:
        R18._wait_gone(s.job, 300)
    done, miss, corrupt = R18._status(st, verify=True)
    ck["at the end: status --verify all done, none corrupt"] = (
        not miss and not corrupt and len(done) == sp.n_cells)  # fmt: skip
    bad, mi = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    print(f"  final store: differing {bad}; missing {mi}")
    ck["at the end: every cube variable == in-process run_sweep (bit)"] = not (bad or mi)
    if at_exit is not None and at_exit[0][1]:
        neg[("waitrequeue", None, "the store when --wait returned == complete")] = (
            False, f"missing {at_exit[0][1]}")  # fmt: skip
    print(f"  squeue at the end: {R18._squeue('%i', s.job, 'all')}")
    return ck, neg, {}


# ---------------------------------------------------------------- 3: --max-parallel below CPUs
def run_maxpar(a):
    from relmc.sweep.slurm import SlurmOptions
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    if not R18.slurm_up():
        return {"local Slurm is up": False}, neg, {}
    cpus = _node_cpus()
    K = max(1, (cpus or 2) - 1)
    print(f"node CPUs {cpus}: K = {K}")
    py1 = R18.py_core1(a)
    n = 50_000 if not a.smoke else 20_000
    toml = R18.sub_toml(a, f"mp20_{S}", S, n, 20_000.0)
    ttab = R18.sub_toml(a, f"mp20_table_{S}", S, n, 20_000.0,
                        slurm=dict(array=3, max_parallel=K, partition="debug", time="00:20:00",
                                   cpus_per_task=1, python=str(py1)))  # fmt: skip
    sp = SweepSpec.from_toml(toml)
    cube = R16.api_cube(a, sp, f"mp20_inproc_{S}")
    print(f"in process: mean ETTR {np.round(cube['ettr_mean'].values, 4).tolist()}")
    st = a.out / f"mp20_{S}.zarr"
    R18._fresh(st)
    r = R18._dry_run(toml, st, "--array", 3, "--max-parallel", K, *_base(py1))
    arr, _ = R18._script(r)
    api = relmc.sweep.submit(toml, store=st, dry_run=True, options=SlurmOptions(
        array=3, max_parallel=K, partition="debug", time="00:20:00", cpus_per_task=1,
        python=str(py1)))  # fmt: skip
    print(f"  dry run: rc {r.returncode}; --array={arr}")
    ck[f"dry run: #SBATCH --array=0-2%{K}; nothing written"] = (
        r.returncode == 0 and arr == f"0-2%{K}" and not st.exists()
        and not Path(f"{st}.slurm").exists())  # fmt: skip
    ck["dry run: the CLI's script == relmc.sweep.submit(dry_run=True, SlurmOptions(...))'s"] = (
        r.stdout.strip() == api.strip())  # fmt: skip
    if r.stdout.strip() != api.strip():
        print(f"    CLI {r.stdout!r}\n    API {api!r}")
    rt = subprocess.run(["relmc", "sweep", "submit", str(ttab), "--store", str(st), "--dry-run"],
                        env=ENV, capture_output=True, text=True)  # fmt: skip
    rt2 = R18._dry_run(ttab, st, "--max-parallel", K + 1)
    ck[f"[slurm] table max_parallel = {K}: %{K}; --max-parallel {K + 1} over it: %{K + 1}"] = (
        R18._script(rt)[0] == f"0-2%{K}" and R18._script(rt2)[0] == f"0-2%{K + 1}"
    )

    class Sub(R18.Submission):
        """Also the pending reasons and each task's running span (``squeue`` every 0.2 s)."""

        reasons, spans = frozenset(), {}

        def _watch(self):
            self.reasons, self.spans = set(), {}
            while self.job and self.p.poll() is None:
                run = R18._squeue("%i", self.job)
                now = time.time()
                for t in run:
                    lo, _ = self.spans.get(t, (now, now))
                    self.spans[t] = (lo, now)
                self.max_running = max(self.max_running, len(run))
                self.reasons |= set(R18._squeue("%r", self.job, "PENDING"))
                time.sleep(0.2)

    for lab, mp in ((f"max-parallel {K}", ["--max-parallel", str(K)]), ("no limit", [])):
        st = a.out / f"mp20_{lab.replace(' ', '_')}_{S}.zarr"
        R18._fresh(st)
        s = Sub([toml, "--store", st, "--array", 3, *mp, *_base(py1), "--wait"], lab).wait()
        spans = sorted(s.spans.values())
        overl = sum(1 for (a0, b0), (a1, _) in zip(spans, spans[1:], strict=False) if a1 < b0)
        print(f"    pending reasons {sorted(s.reasons)}; running spans (s from the first) "
              f"{[(round(x - spans[0][0], 1), round(y - spans[0][0], 1)) for x, y in spans]}; "
              f"overlapping consecutive {overl}")  # fmt: skip
        logs, nc = R18._task_logs(st)
        ck[f"[{lab}] submit --wait rc 0; 3 task logs computing 6 cells"] = (
            s.rc == 0 and len(logs) == 3 and nc == 6)  # fmt: skip
        if mp:
            ck[
                f"[{lab}] at most {K} running at once ({K} seen), JobArrayTaskLimit seen, the "
                "tasks' running spans disjoint"
            ] = s.max_running == K and "JobArrayTaskLimit" in s.reasons and not overl
        else:
            neg[("maxpar", None, f"control: at most {K} running without the limit")] = (
                s.max_running <= K, f"most running {s.max_running}, reasons "
                f"{sorted(s.reasons)}")  # fmt: skip
        if s.rc == 0:
            bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
            ck[f"[{lab}] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)
    return ck, neg, {}


# ---------------------------------------------------------------- 4: SDC multiplier, frailty fit
FN, FW = 256, 24.0
FPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2,
            n_spares=4, repair_hours=4.0, lemon_failures=2, lemon_window_hours=24.0,
            checkpoint_retention=4)  # fmt: skip
FFM = dict(bad_node_fraction=0.15, bad_node_multiplier=4.0)
SDC_F = dict(
    name="silent",
    kind="sdc",
    rate=0.15,
    unit="job",
    recovery="swap",
    sdc_latency_hours=2.0,
    sdc_latency_distribution="fixed",
    bad_node_multiplier=12.0,
)


def frailty_file(a):
    """A synthetic log with a gamma frailty (variance 0.5), fitted with ``nodes="frailty"``
    (2 x 100 draws, seed 1), cut to one draw of each chain; cached in ``--out``."""
    import arviz as az

    path = a.out / "frail20_fit.nc"
    if not path.exists():
        ev = relmc.events.synthetic_events(
            {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=256, duration_hours=1500.0,
            units={"gpu": "gpu", "net": "node"}, frailty_variance=0.5, seed=4,
        )  # fmt: skip
        print(f"log: counts {ev['count'].values.tolist()}")
        t0 = time.time()
        fe = relmc.fit_events(ev, nodes="frailty", n_draws=100, n_tune=300, n_chains=2,
                              cores=1, seed=1)  # fmt: skip
        print(f"fit_events(nodes='frailty') {time.time() - t0:.1f}s")
        fe.to_netcdf(path)
    pf = R18._thin(a, az.from_netcdf(path), "frail20_thin.nc")
    return pf, az.from_netcdf(pf)


def fr_scen(d0, sdc=SDC_F, pol=FPOL, fm=FFM):
    sc = R6.at_size(R9.with_compute(d0, FW), FN)
    cats = tuple(dataclasses.replace(c, recovery="swap", detection_hours=0.1)
                 if c.name == "gpu" else c for c in sc.failures.categories)  # fmt: skip
    cats += (relmc.Category(**sdc),)
    return dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, categories=cats, **fm),
        policy=dataclasses.replace(sc.policy, **pol))  # fmt: skip


def fr_spec(sc, me, k, var=None, F=None):
    """``run_r5(node=True)`` spec of ``sc`` at draw ``k``: the fitted rates over f, the
    scenario's lemons (the model's multiplier for the fit's categories), the SDC with its own;
    ``var`` a misreading."""
    s = R17._node_spec_of(sc, me, sc.cluster.n_gpus, k)
    pol = sc.policy
    s.update(repair_h=pol.repair_hours, n_standbys=pol.n_standbys,
             preempt_h=pol.preemption_hours, K=pol.checkpoint_retention)  # fmt: skip
    sp = {k_[: -len("_spread")]: getattr(pol, k_) for k_ in ("sdc_latency_spread",)
          if getattr(pol, k_) != 1.0}  # fmt: skip
    s["spreads"] = sp or None
    if var == "lemons off (f = 0)":
        s["f"] = 0.0
    if var == "the fit's categories at multiplier 1":
        for c in s["cats"]:
            c["mult"] = 1.0
    s["cats"] = s["cats"] + R19._added(sc, var)
    return s


def fr_toml(a, S):
    t = a.out / f"frail20_{S}.toml"
    t.write_text(
        f"[cluster]\nn_gpus = {FN}\n\n[job]\ncompute_hours = {FW}\n\n[policy]\n"
        + "".join(f"{k} = {_tv(v)}\n" for k, v in FPOL.items())
        + "\n[failures]\n" + "".join(f"{k} = {v}\n" for k, v in FFM.items())
        + '\n[[failures.categories]]\nname = "gpu"\nrecovery = "swap"\ndetection_hours = 0.1\n'
        + "\n[[failures.categories]]\n" + "".join(f"{k} = {_tv(v)}\n" for k, v in SDC_F.items())
    )  # fmt: skip
    return t


#: misreadings whose independent trials draw their own factors (or have none)
NO_F = ("a factor per trial", "spread ignored (the median latency)")


def _compare(a, tag, P, sc, spec_of, nd, base, comp, key, variants, shown, F=None):
    """``P``'s trials per draw vs ``run_r5(node=True)``; misreadings on draw 0. ``F``: per-draw
    factors (rows) given to the independent trials (None: their own per trial)."""
    s0 = spec_of(0, None)
    t = indep_nodes.relmc_table(P, s0)
    for k in range(nd):
        mask = P.draw.values == k if nd > 1 else np.ones(P.sizes["trial"], bool)
        for j, var in enumerate((None, *variants)):
            if var is not None and k:
                continue
            Fk = None
            if F is not None and var not in NO_F:
                row = F[1 - k] if var == "the other draw's factor" else F[k]
                Fk = dict(zip(r5_indep.COLS, map(float, row), strict=True))
            b = r5_indep.run_r5(spec_of(k, var), a.n_indep,
                                base + 7 * k + 1000 * j + 100_000 * a.iseed, F=Fk,
                                node=True)  # fmt: skip
            if var is None:
                print(f"    [{tag}] d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
            comp[(key, tag, k, var or "documented")] = r4_run.compare_tables(
                f"{tag} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0, quiet=True
            )


def run_sdcfrail(a):
    ck, neg, comp = {}, {}, {}
    S = a.seed
    C9.SEED = S
    pf, idata = frailty_file(a)
    post = idata.posterior
    print(f"file: variables {sorted(post.data_vars)}; frailty_variance "
          f"{np.round(post['frailty_variance'].values.ravel(), 4).tolist()}")  # fmt: skip
    d0 = default_scenario(idata)
    print(
        f"  default categories "
        f"{[(c.name, c.unit, c.recovery, c.detection_hours) for c in d0.failures.categories]}"
    )
    sc = fr_scen(d0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        P = relmc.simulate(sc, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
    uw = R19._warned(w)
    print(f"  simulate's notes: {uw}")
    ck["simulate: one note, naming frailty_variance; none on the lemon fields"] = (
        len(uw) == 1 and "frailty_variance" in uw[0] and "bad_node" not in uw[0])  # fmt: skip
    dr = physics_draws(sc, idata)
    print(f"  physics_draws: bad_node_fraction {dr.bad_node_fraction}, bad_node_multiplier "
          f"{dr.bad_node_multiplier}")  # fmt: skip
    ck["physics_draws: no lemon rows (None): the scenario's own fraction and multipliers"] = (
        dr.bad_node_fraction is None and dr.bad_node_multiplier is None)  # fmt: skip
    me = M8.Mine(idata, sc)
    ck["job_rates == my Lambda + the SDC's rate (rel)"] = float(
        np.abs(job_rates(sc, rate_draws(sc, idata)) / me.lam(FN, fixed=True) - 1).max()
    )
    out = a.out / f"frail20_sim_{S}"
    shutil.rmtree(out, ignore_errors=True)
    rc = C9.cli(["simulate", str(fr_toml(a, S)), "--posterior", str(pf), "--n-trials",
                 str(a.n_sim)], out)  # fmt: skip
    ck["relmc simulate TOML --posterior rc 0"] = rc == 0
    if rc == 0:
        Q = xr.open_dataset(out / "simulation.nc").load()
        bad, miss = C9.diff_vars(P, Q)
        print(f"  relmc simulate vs simulate: {len(P.data_vars)} variables, differing {bad}, "
              f"missing {miss}")  # fmt: skip
        ck[
            "relmc simulate TOML --posterior == simulate(my scenario, rates=file, seed) every "
            "variable (bit)"
        ] = not (bad or miss)
        sa = R15._scen_attr(Q)
        if sa is not None:
            ck["simulation.nc's scenario attr == my scenario (to_dict)"] = (
                R15._js(sa) == R15._js(sc.to_dict()))  # fmt: skip
    s0 = fr_spec(sc, me, 0)
    dif = R17._policy_diff(s0, sc) + R18._cat_diff(s0, sc)
    ck["indep spec's policy / job / failure model / SDC (its own multiplier) == mine"] = not dif
    if dif:
        print(f"    indep spec differs in {dif}")
    print(f"  my f {np.round(me.f(), 5).tolist()}; fitted job rates over f "
          f"{np.round(me.fitted(FN) / me.f()[:, None], 4).tolist()}; mean ETTR "
          f"{float(P.ettr.mean()):.4f}, finished {float(P.finished.mean()):.3f}")  # fmt: skip
    _compare(a, "frailty + SDC", P, sc, lambda k, v: fr_spec(sc, me, k, v), 2, 20_100, comp,
             "sdcfrail",
             ("SDC at the model's multiplier", "the fit's categories at multiplier 1",
              "lemons off (f = 0)"),
             ("events", "int_gpu", "int_net", "int_silent", "sdc_rollbacks", "sdc_from_scratch",
              "nodes_excluded_bad", "nodes_excluded_good", "repairs_auto"))  # fmt: skip
    P2 = relmc.simulate(sc, rates=idata, n_trials=a.n_sim, seed=S + 1, n_threads=1)
    neg[("sdcfrail", None, "simulate seed + 1 (ettr)")] = (bit(P.ettr, P2.ettr), "")
    return ck, neg, comp


# ---------------------------------------------------------------- 5: sdc_latency_spread + nodes
K_SP, L_SP = 3.0, 1.5


def sp_spec(L=L_SP, spread=True, exp=False):
    cats = [ncat("crash", 0.1, swap=True),
            ncat("silent", 0.2, kind="sdc", swap=True, sdc_L=L, sdc_exp=exp)]  # fmt: skip
    return node_spec(W=24.0, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=2,
                     repair_h=4.0, f=0.15, m=5.0, lemon_k=2, lemon_win=24.0, K=3,
                     cap_factor=20.0, spreads={"sdc_latency": K_SP} if spread else None,
                     cats=cats)  # fmt: skip


def run_sdcspread(a):
    ck, neg, comp = {}, {}, {}
    S = a.seed
    sig = math.log(K_SP) / M8.Z95
    Lmean = L_SP * math.exp(sig * sig / 2)
    print(f"spread {K_SP}: sigma {sig:.4f}; latency median {L_SP} h, mean {Lmean:.4f} h")
    shown = ("events", "int_crash", "int_silent", "sdc_rollbacks", "sdc_from_scratch",
             "sdc_undetected", "nodes_excluded_bad", "repairs_auto")  # fmt: skip
    # (a) point rates: every trial its own draw (4,096 repeated), a fixed latency
    spec = sp_spec()
    sc = indep_nodes.build_relmc(spec)
    ck["[point] the built scenario: sdc_latency_spread 3, SDC fixed at 1.5 h, node model "
       "fields"] = (
        sc.policy.sdc_latency_spread == K_SP and sc.failures.bad_node_fraction == 0.15
        and next(c for c in sc.failures.categories if c.name == "silent").sdc_latency_hours
        == L_SP)  # fmt: skip
    n_pt = min(a.n_sim, 4096)
    P = relmc.simulate(sc, n_trials=n_pt, seed=S, n_threads=1)
    ck["[point] trial i runs draw i mod 4096 (draw == arange)"] = bit(
        P.draw.values, np.arange(n_pt) % 4096)  # fmt: skip
    Pns = relmc.simulate(indep_nodes.build_relmc(sp_spec(spread=False)), n_trials=n_pt, seed=S,
                         n_threads=1)  # fmt: skip
    neg[("sdcspread", "point", "the same without the spread (ettr)")] = (bit(P.ettr, Pns.ettr), "")
    print(
        f"  [point] {n_pt} trials: mean ETTR {float(P.ettr.mean()):.4f} (without the spread "
        f"{float(Pns.ettr.mean()):.4f}), finished {float(P.finished.mean()):.3f}"
    )
    variants = {"fixed latency of the same mean": sp_spec(L=Lmean, spread=False),
                "spread ignored": sp_spec(spread=False)}  # fmt: skip
    _compare(a, "point", P, sc, lambda k, v: variants[v] if v else spec, 1, 20_300, comp,
             "sdcspread", tuple(variants), shown)  # fmt: skip
    # (b) the frailty file (2 draws, one factor each), an exponential latency
    pf, idata = frailty_file(a)
    d0 = default_scenario(idata)
    sdc = dict(SDC_F, sdc_latency_hours=L_SP, sdc_latency_distribution="exponential",
               bad_node_multiplier=None)  # fmt: skip
    scq = fr_scen(d0, sdc=sdc, pol=dict(FPOL, sdc_latency_spread=K_SP))
    Q = relmc.simulate(scq, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
    Q2 = relmc.simulate(scq, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1,
                        overhead_seed=S)  # fmt: skip
    ck["[file] overhead_seed defaults to seed (every variable, bit)"] = C9.diff_vars(Q, Q2) == (
        [], [])  # fmt: skip
    F = r5_indep.overhead_factors({"sdc_latency": K_SP}, 2, S)
    print(f"  [file] per-draw SDC latency factors (overhead_factors, seed {S}): "
          f"{np.round(F[:, 8], 4).tolist()}; other columns all 1: "
          f"{bool(np.all(F[:, :8] == 1.0))}; mean ETTR {float(Q.ettr.mean()):.4f}")  # fmt: skip
    me = M8.Mine(idata, scq)
    s0 = fr_spec(scq, me, 0)
    dif = R17._policy_diff(s0, scq) + R18._cat_diff(s0, scq)
    ck["[file] indep spec's policy (sdc_latency_spread) / job / failure model / SDC == mine"] = (
        not dif)  # fmt: skip
    if dif:
        print(f"    indep spec differs in {dif}")

    def spec_q(k, var):
        if var == "spread ignored (the median latency)":
            return fr_spec(
                dataclasses.replace(
                    scq, policy=dataclasses.replace(scq.policy, sdc_latency_spread=1.0)
                ),
                me,
                k,
            )
        return fr_spec(scq, me, k)

    _compare(a, "file", Q, scq, spec_q, 2, 20_500, comp, "sdcspread",
             ("the other draw's factor", "a factor per trial",
              "spread ignored (the median latency)"), shown, F=F)  # fmt: skip
    return ck, neg, comp


# ---------------------------------------------------------------- 6: fit --fleet with maintenance
CN, CH, CM = 4096, 720.0, 18
COUNTS = """category,group,count,unit
gpu,GPU,40,gpu
host,Host,12,node
nic,Network,9,link
tor,Network,3,switch
sw,Dependency,7,job
"""
OTHER = "category,count,unit\ntotal,30,node\n"
FFIT = ["--n-draws", "200", "--n-chains", "2", "--n-tune", "300"]
PFL2 = [
    "--n-gpus",
    str(CN),
    "--compute-hours",
    "48",
    "--checkpoint-interval",
    "0.5",
    "--snapshot-hours",
    "0.03",
    "--restart-hours",
    "0.2",
    "--maintenance-hours",
    "0.5",
]


def counts_files(a):
    c, o = a.out / "mine20.csv", a.out / "other20.csv"
    c.write_text(COUNTS)
    o.write_text(OTHER)
    return c, o


def fleets_fit(a, maint=True, seed=5):
    """``relmc fit --counts ... [--observed-maintenance 18] --fleet rsc-1 --fleet
    other.csv:8192:2000 --seed 5`` once into ``--out``: (rc, stdout+stderr, file)."""
    c, o = counts_files(a)
    out = a.out / f"ffit20_{'maint' if maint else 'none'}"
    log = out / "stdout.txt"
    if not (out / "posterior.nc").exists():
        shutil.rmtree(out, ignore_errors=True)
        cmd = [
            "taskset",
            "-c",
            "1",
            "relmc",
            "fit",
            "--counts",
            str(c),
            "--observed-gpus",
            str(CN),
            "--observed-hours",
            str(CH),
            *(["--observed-maintenance", str(CM)] if maint else []),
            "--fleet",
            "rsc-1",
            "--fleet",
            f"{o}:8192:2000",
            *FFIT,
            "--seed",
            str(seed),
            "--out",
            str(out),
        ]
        t0 = time.time()
        r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
        print(f"$ {' '.join(cmd[3:])}  ({time.time() - t0:.1f}s, rc {r.returncode})")
        if r.returncode:
            print(r.stderr[-1500:])
            return r.returncode, r.stdout + r.stderr, None
        out.mkdir(exist_ok=True)
        log.write_text(r.stdout + "\n" + r.stderr)
    return 0, log.read_text(), out / "posterior.nc"


def conj_fit(a, seed=5):
    c, _ = counts_files(a)
    out = a.out / "cfit20_maint"
    if not (out / "posterior.nc").exists():
        shutil.rmtree(out, ignore_errors=True)
        s0, C9.SEED = C9.SEED, seed
        try:
            rc = C9.cli(
                [
                    "fit",
                    "--counts",
                    str(c),
                    "--observed-gpus",
                    str(CN),
                    "--observed-hours",
                    str(CH),
                    "--observed-maintenance",
                    str(CM),
                ],
                out,
                threads=False,
            )
        finally:
            C9.SEED = s0
        if rc:
            return None
    return out / "posterior.nc"


def _scen(idata, n, **pol):
    sc = default_scenario(idata)
    sc = R6.at_size(R9.with_compute(sc, 48.0), n)
    pd = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.2, **pol)
    return dataclasses.replace(
        sc,
        policy=dataclasses.replace(sc.policy, **pd),
        failures=dataclasses.replace(sc.failures, maintenance_hours=0.5),
    )


def run_fitfleetmaint(a):
    import arviz as az

    ck, neg = {}, {}
    S = a.seed
    C9.SEED = S
    rec = CM / CH
    rc, txt, pf = fleets_fit(a)
    rc0, txt0, pf0 = fleets_fit(a, maint=False)
    ck[
        "relmc fit --counts ... --observed-maintenance 18 --fleet rsc-1 --fleet CSV:8192:2000 rc "
        "0; without the count rc 0"
    ] = rc == 0 and rc0 == 0
    lines = [x for x in txt.splitlines() if "maintenance" in x.lower()]
    lines0 = [x for x in txt0.splitlines() if "maintenance" in x.lower()]
    print(f"  printed (with): {lines}\n  printed (without): {lines0}")
    if pf is None or pf0 is None:
        return ck, neg, {}
    num = re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", " ".join(lines))
    ck["the printed line states the recorded rate 18 / 720 h = 0.025 per hour"] = any(
        abs(float(x) - rec) < 5e-4 for x in num) or any(
        abs(float(x) - rec * 24) < 5e-3 for x in num)  # fmt: skip
    ck["without the count the fit prints 'none recorded'"] = any(
        "none recorded" in x for x in lines0)  # fmt: skip
    fe, fn = az.from_netcdf(pf), az.from_netcdf(pf0)
    at, ra = fe.posterior.attrs, fe.posterior["rate"].attrs
    print(f"  posterior attrs maintenance_rate {at.get('maintenance_rate')}, rate attrs "
          f"{ra.get('maintenance_rate')} (n_gpus {ra.get('n_gpus')}, duration_hours "
          f"{ra.get('duration_hours')}); without the count "
          f"{fn.posterior.attrs.get('maintenance_rate')}, "
          f"{fn.posterior['rate'].attrs.get('maintenance_rate')}; fleets "
          f"{fe.posterior['fleet'].values.tolist()}")  # fmt: skip
    ck["the posterior's attrs and rate's attrs record maintenance_rate 0.025"] = all(
        x is not None and abs(float(x) - rec) < 1e-15
        for x in (at.get("maintenance_rate"), ra.get("maintenance_rate")))  # fmt: skip
    ck["without the count: none recorded (absent or 0) in either"] = not float(
        fn.posterior.attrs.get("maintenance_rate", 0) or 0) and not float(
        fn.posterior["rate"].attrs.get("maintenance_rate", 0) or 0)  # fmt: skip
    vs = ("rate", "fleet_rate", "fleet_multiplier", "sigma")
    ck["the count changes no draw (rate, fleet_rate, fleet_multiplier, sigma; bit)"] = all(
        bit(fe.posterior[v].values, fn.posterior[v].values) for v in vs)  # fmt: skip
    # the API path
    c, o = counts_files(a)
    names = fe.posterior["fleet"].values.tolist()
    dsets = [relmc.load_counts(str(c), n_gpus=CN, duration_hours=CH, maintenance_count=CM),
             relmc.load_dataset("rsc-1"), relmc.load_counts(str(o), n_gpus=8192,
                                                             duration_hours=2000.0)]  # fmt: skip
    apif = a.out / "ffit20_api.nc"
    if not apif.exists():
        relmc.fit_fleets(dict(zip(names, dsets, strict=True)), n_draws=200, n_chains=2,
                         n_tune=300, cores=1, seed=5).to_netcdf(apif)  # fmt: skip
    fa = az.from_netcdf(apif)
    same = [v for v in vs if bit(fa.posterior[v].values, fe.posterior[v].values)]
    print(
        f"  API fit_fleets: maintenance_rate {fa.posterior.attrs.get('maintenance_rate')} / "
        f"{fa.posterior['rate'].attrs.get('maintenance_rate')}; equal to the CLI's {same}"
    )
    ck[
        "API fit_fleets(load_counts(maintenance_count=18), rsc-1, other; seed 5) == relmc fit "
        "(draws bit; the same record)"
    ] = (
        len(same) == len(vs)
        and fa.posterior.attrs.get("maintenance_rate") == at.get("maintenance_rate")
        and fa.posterior["rate"].attrs.get("maintenance_rate") == ra.get("maintenance_rate")
    )
    d0 = default_scenario(fe)
    ck["default_scenario(file) takes the record"] = d0.failures.maintenance_rate == rec
    sc = _scen(fe, CN)
    me = M8.Mine(fe, sc)
    ck["maintenance_rate == record / mean f (rel)"] = abs(
        maintenance_rate(sc, rate_draws(sc, fe)) / (rec / me.f().mean()) - 1)  # fmt: skip
    print(f"  my f mean {me.f().mean():.5f}; maintenance per exposed hour "
          f"{rec / me.f().mean():.6f}")  # fmt: skip
    outs = R19.project_rates(a, pf, PFL2, rec, "20", ck)
    Pp = outs["record"]
    if Pp is not None:
        api = relmc.project(fe, n_gpus=[CN], scenario=sc, n_trials=a.n_sim, seed=S,
                            n_threads=1, credible_trials=0, keep_trials=True)  # fmt: skip
        bad, miss = C9.diff_vars(Pp, api)
        print(
            f"  [project] file vs API: {len(Pp.data_vars)} variables, differing {bad}, "
            f"missing {miss}; mean ETTR {float(Pp['ettr_mean'].values.ravel()[0]):.4f}, "
            f"planned events a trial {float(Pp['maintenance_events_mean'].values.ravel()[0]):.4f}"
        )
        ck["[project] projection.nc == project(file, my scenario) every variable (bit)"] = not (
            bad or miss)  # fmt: skip
        sa = R15._scen_attr(Pp)
        ck["[project] the scenario attr's maintenance_rate == the record"] = (
            sa is not None and sa["failures"]["maintenance_rate"] == rec)  # fmt: skip
        x = outs["--maintenance-rate 0.025"]
        if x is not None:
            b2, m2 = C9.diff_vars(Pp, x)
            ck["[project] --maintenance-rate 0.025 == the record's run (bit)"] = not (b2 or m2)
        z = outs["--maintenance-rate 0"]
        if z is not None:
            b2, _ = C9.diff_vars(Pp, z)
            neg[("fitfleetmaint", "project", "--maintenance-rate 0")] = (
                not b2, f"{len(b2)} of {len(Pp.data_vars)} differ")  # fmt: skip
    return ck, neg, {}


# ---------------------------------------------------------------- 7: optimize on such a file
OFL = [
    "--n-gpus",
    str(CN),
    "--compute-hours",
    "48",
    "--snapshot-hours",
    "0.03",
    "--restart-hours",
    "0.2",
    "--maintenance-hours",
    "0.5",
]


def run_optmaint(a):
    import arviz as az

    ck, neg = {}, {}
    S = a.seed
    C9.SEED = S
    rec = CM / CH
    _, _, pff = fleets_fit(a)
    pfc = conj_fit(a)
    n = a.n_sim
    for tag, pf in (("fleets", pff), ("conjugate", pfc)):
        ck[f"[{tag}] the fit file exists (relmc fit rc 0)"] = pf is not None
        if pf is None:
            continue
        idata = az.from_netcdf(pf)
        print(f"[{tag}] record {idata.posterior.attrs.get('maintenance_rate')}")
        res = {}
        for lab, extra in (("record", []), ("--maintenance-rate 0.025",
                                            ["--maintenance-rate", repr(rec)]),
                           ("--maintenance-rate 0", ["--maintenance-rate", "0"])):  # fmt: skip
            out = a.out / f"opt20_{tag}_{lab.replace(' ', '_')}_{S}"
            shutil.rmtree(out, ignore_errors=True)
            r = C9.cli(["optimize", "--posterior", str(pf), *OFL, *extra, "--n-trials", str(n)],
                       out)  # fmt: skip
            ck[f"[{tag}] optimize {lab}: rc 0"] = r == 0
            res[lab] = xr.open_dataset(out / "optimize.nc").load() if r == 0 else None
        R = res["record"]
        if R is None:
            continue
        sa = R15._scen_attr(R)
        print(f"  optimum {float(R['optimal_interval_hours']):.4f} h; rule ETTR "
              f"{np.round(R['rule_ettr_mean'].values, 4).tolist()} over "
              f"{R['rule'].values.tolist()}; scenario attr maintenance_rate "
              f"{(sa or {}).get('failures', {}).get('maintenance_rate')}; mttf attr "
              f"{R.attrs.get('mttf_hours')}")  # fmt: skip
        ck[f"[{tag}] optimize.nc's scenario attr: maintenance_rate == the record"] = (
            sa is not None and sa["failures"]["maintenance_rate"] == rec)  # fmt: skip
        x = res["--maintenance-rate 0.025"]
        if x is not None:
            b2, m2 = C9.diff_vars(R, x)
            ck[f"[{tag}] --maintenance-rate 0.025 == the record's run (every variable, bit)"] = (
                not (b2 or m2))  # fmt: skip
        sc = R6.at_size(default_scenario(idata), CN)
        sc = dataclasses.replace(
            R9.with_compute(sc, 48.0),
            policy=dataclasses.replace(sc.policy, snapshot_hours=0.03, restart_hours=0.2),
            failures=dataclasses.replace(sc.failures, maintenance_hours=0.5))  # fmt: skip
        api = relmc.optimize_checkpoint(idata, scenario=sc, n_trials=n, seed=S, n_threads=1)
        bad, miss = C9.diff_vars(R, api)
        print(f"  [{tag}] file vs optimize_checkpoint: differing {bad}, missing {miss}")
        ck[
            f"[{tag}] optimize.nc == optimize_checkpoint(file, default_scenario + the flags) "
            "(every variable, bit)"
        ] = not (bad or miss)
        z = res["--maintenance-rate 0"]
        if z is not None:
            b2, _ = C9.diff_vars(R, z)
            neg[("optmaint", tag, "--maintenance-rate 0")] = (
                not b2, f"{len(b2)} of {len(R.data_vars)} differ; optimum "
                f"{float(z['optimal_interval_hours']):.4f} h, rule ETTR "
                f"{np.round(z['rule_ettr_mean'].values, 4).tolist()}")  # fmt: skip
            me1, me0 = (
                M8.Mine(idata, sc),
                M8.Mine(
                    idata,
                    dataclasses.replace(
                        sc, failures=dataclasses.replace(sc.failures, maintenance_rate=0.0)
                    ),
                ),
            )
            want = me0.f().mean() / me1.f().mean()
            got = z.attrs["mttf_hours"] / R.attrs["mttf_hours"]
            print(f"  [{tag}] Young / Daly / mttf_hours attr with the record and with 0: "
                  f"{np.round(R['interval_hours'].values[1:3], 5).tolist()} / "
                  f"{np.round(z['interval_hours'].values[1:3], 5).tolist()}; mttf ratio "
                  f"{got:.6f}, my f(0) / f(record) {want:.6f}")  # fmt: skip
            ck[f"[{tag}] the recorded rate moves mttf_hours (Young / Daly) only through the "
               "exposed share f: mttf(0) / mttf(record) == f(0) / f(record) (rel)"] = abs(
                got / want - 1)  # fmt: skip
            sz = R15._scen_attr(z)
            ck[f"[{tag}] with --maintenance-rate 0 the scenario attr holds 0"] = (
                sz is not None and sz["failures"]["maintenance_rate"] == 0.0)  # fmt: skip
    return ck, neg, {}


def main(argv=None):
    modes = dict(killtmp=run_killtmp, waitrequeue=run_waitrequeue, maxpar=run_maxpar,
                 sdcfrail=run_sdcfrail, sdcspread=run_sdcspread,
                 fitfleetmaint=run_fitfleetmaint, optmaint=run_optmaint)  # fmt: skip
    R10.mode_main("r20", __doc__, {k: R19._bools(v) for k, v in modes.items()}, argv, n_sim=8000,
                  smoke_sim=512, tag_sim=True,
                  n_sim_help="relmc trials per case")  # fmt: skip


if __name__ == "__main__":
    main()
