"""Twenty-first round: a SIGKILL partway through a sweep chunk's write and a write that fails on
a full disk, ``relmc sweep submit --wait`` with a requeued task that fails on its second run,
lemon exclusion with ``sdc_latency_spread`` on point rates, a ``nodes="frailty"`` event fit with
daily-cycle and trend terms beside the scenario's own lemons, and ``relmc compare`` and a sweep
on a ``fit_fleets`` file that records planned maintenance.

Written from the documents only: ``relmc.sweep``'s module docstring ("Crash safety": "Every
chunk is written to a temporary file and renamed into place ..., so a process killed at any
moment (SIGKILL, ...) leaves each chunk either old or new"; "A failed write (a full disk) ends
the run with one ``OSError`` naming the store and the cell, which stays not done, with no
temporary file left; the next run computes it. A process killed between a chunk's temporary
file and its rename leaves that file (``*.partial``, empty or whole) in the store: reads,
reruns and ``relmc sweep status --verify`` ignore it and keep it, and ``relmc sweep pack`` in
place removes it (its file count includes it)"), ``run_sweep``' ("Raises ... OSError  A failed
write (e.g. a full disk): one message naming the store and the cell"), the README ("Sweeps are
resumable and verifiable": "A failed cell write (a full disk) ends the run with one line naming
the store and the cell ... and leaves no temporary file"; "with ``--wait`` ... a failed or
cancelled task names the job, its task logs and the store, with exit status 1 (submit again to
finish the store)"; "A requeued task ... its log starts afresh; ``--wait`` waits through that
hold and returns when the array's last task has ended: exit status 0 when every task (a
requeued one's last run included) succeeded, else 1 as above"; "Lemon detection"), ``relmc
sweep submit --help``, ``relmc.sweep.submit``' (``wait``), ``Policy``'s
``sdc_latency_spread``, the contract (``relmc.sim``: "Time-varying failure rates", "Nodes",
"Uncertain overheads"), ``relmc.models.events``' ("Each term is optional"; "Outputs":
``frailty_variance`` "is reported but not simulated ... unless the scenario sets lemons of its
own ...: those then apply to the fit's rates"), ``fit_events``', ``physics_draws``' and
``PhysicsDraws``', ``fit_fleets``' (``rate.attrs`` "holds the categorised fleet's" record),
``relmc.compare``', ``relmc compare --help`` (``--posterior NC``: "its categories, rates and
recorded maintenance"; ``--maintenance-rate``: "default: the rate the data or fit record") and
``SweepSpec``' (``base``). Source bodies, ``_kernels*.py``, ``reference.py``, ``inputs.py`` and
``tests/`` not read. No new simulator: the node trials ``r5_indep.run_r5(node=True)`` through
``r20_proj._compare``, the spec of a scenario ``r20_proj.fr_spec`` / ``r17_proj._node_spec_of``,
the frailty scenario ``r20_proj.fr_scen`` / ``fr_toml``, the fleets fit
``r20_proj.fleets_fit`` / ``_scen``, the store watcher ``r20_proj.Watch`` (``r19_proj.Inotify``)
and ``_fifo`` / ``_temps``, the Slurm helpers of ``r18_proj``, ``r16_proj.api_cube`` /
``inproc_cube`` / ``sweep_cli``, ``r19_proj._warned`` / ``_bools`` and the report
``r10_proj.mode_main``.

Modes:

killmid       6-cell point-rate sweep with ``keep_trials`` (400,000 trials a cell): a cell's
              writes surveyed by inotify (``IN_MODIFY`` per temporary file: how many write
              calls); ``relmc sweep run --cells K`` SIGKILLed *inside* a per-trial chunk's
              write (the temporary file's size polled every 50 us from its creation, the kill
              at the first non-zero size) for three cells and at the ``IN_MODIFY`` of another
              (written, not closed); what is left (sizes against the chunk the rerun writes,
              its leading bytes), ``status --verify``, the rerun, ``pack`` (its file count);
              then a store on a small tmpfs filled by another file when the cell's first
              temporary file appears: ``relmc sweep run`` and ``run_sweep`` (a child), their
              errors, what is left, the rerun; each final cube = in process (bit).
failrequeue   ``relmc sweep submit --array 2 --wait`` whose ``--python`` wrapper exits 1 on a
              task's second run; ``scontrol requeue JOB_0`` once a cell of task 0 is done:
              ``--wait``'s exit status and message, the store, task 0's log; then ``submit``
              again (``--dry-run``: the cells missing) ``--wait``: the cube (bit).
lemonspread   ``sdc_latency_spread = 3`` on point rates with lemons 0.15 x 20 and lemon
              detection 2 in 48 h (nodes excluded), a restarting crash category and a swapping
              SDC: 4,096 relmc trials vs ``run_r5(node=True)`` with a fresh factor a trial;
              negatives a fixed latency of the same mean, the spread ignored, the lemons off.
frailtrend    ``fit_events(nodes="frailty", diurnal="category", trend=True)`` of a young
              fleet's log cut to one draw of each chain; the scenario's lemons (0.15 x 4) and
              an SDC with its own multiplier 12 (128 GPUs, 48 h): notes, ``physics_draws``,
              ``relmc simulate TOML --posterior`` = ``simulate`` (bit), per draw vs ``run_r5``
              with the draw's cycle and trend; negatives the SDC at the model's 4, the fit's
              categories at 1, the lemons off (draw 0), no trend (the draw of the smaller
              trend shape); an 8-h job from 10:00 per draw, negative amplitude 0 (draw 0).
fleetmaintcmp the twentieth round's ``relmc fit --counts ... --observed-maintenance 18 --fleet
              ...`` file: ``relmc compare --posterior`` (record, ``--maintenance-rate 0.025``,
              0) = ``relmc.compare`` (bit); a sweep on the file (``run_sweep`` and ``relmc
              sweep run``) without ``maintenance_rate``, with it set to the record, with 0.

    taskset -c 1 python benchmarks/outside_physics/r21_proj.py MODE [--seed S] [--n-indep N]
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
from relmc._seed import resolve_seed
from relmc.projection import default_scenario
from relmc.rates import job_rates, physics_draws, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
import r10_proj as R10  # noqa: E402
import r16_proj as R16  # noqa: E402
import r17_proj as R17  # noqa: E402
import r18_proj as R18  # noqa: E402
import r19_proj as R19  # noqa: E402
import r20_proj as R20  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")
IN_MODIFY = 0x2
KINDS = {0x100: "create", 0x2: "modify", 0x8: "close", 0x40: "from", 0x80: "to"}


def _kind(mask):
    return next((v for k, v in KINDS.items() if mask & k), hex(mask))


def _lines(r):
    return (r.stdout + r.stderr).strip()


# ---------------------------------------------------------------- 1: SIGKILL inside a write
def watched(cmd, st, on_event=None):
    """``cmd`` (a list) as a child, every folder of store ``st`` watched by inotify (creations,
    writes, closes, both halves of a rename) from this process at ``SCHED_FIFO``, so that it
    answers each event before the child's next system call. ``on_event(p, folder, kind,
    name)`` may act (kill, fill the disk) and return a record, which ends the calls.
    Returns rc, the events, the record, the child's output."""
    ino = R20.Watch(st)
    mask = ino.IN_CREATE | ino.IN_MOVED_TO | ino.IN_CLOSE_WRITE | ino.IN_MOVED_FROM | IN_MODIFY
    for d in ino.wd.values():  # the same watches, writes added
        ino.libc.inotify_add_watch(ino.fd, str(Path(st) / d).encode(), mask)
    p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    fifo = R20._fifo(True)
    ev, hit = [], None
    try:
        while True:
            got = ino.read(0.05)
            for d, m, name in got:
                ev.append((d, _kind(m), name))
                if on_event is not None and hit is None:
                    hit = on_event(p, d, _kind(m), name)
                    if hit is not None:
                        hit["at"] = len(ev)
            if not got and p.poll() is not None:
                break
    finally:
        R20._fifo(False)
    out, err = p.communicate()
    ev += [(d, _kind(m), n) for d, m, n in ino.read(0.02)]
    ino.close()
    return dict(rc=p.returncode, ev=ev, hit=hit, fifo=fifo, out=out, err=err)


def _run_cells(toml, st, cell):
    return ["taskset", "-c", "1", "relmc", "sweep", "run", str(toml), "--store", str(st),
            "--cells", str(cell), "--n-threads", "1", "--no-progress"]  # fmt: skip


def kill_in_write(fold, st, poll=5e-5, limit=3.0):
    """An ``on_event``: at the creation of a temporary file in ``fold``, poll its size every
    ``poll`` s and SIGKILL the child as soon as it is not empty (inside the write call)."""

    def on(p, d, kind, name):
        if d != fold or kind != "create" or R20.CHUNK.fullmatch(name):
            return None
        f, t0, sizes = Path(st) / d / name, time.perf_counter(), []
        while time.perf_counter() - t0 < limit:
            time.sleep(poll)
            try:
                s = f.stat().st_size
            except FileNotFoundError:  # renamed already: too late
                s = -1
            sizes.append(s)
            if s != 0:
                break
        os.kill(p.pid, signal.SIGKILL)
        return dict(name=name, seen=sizes[-1], polls=len(sizes),
                    ms=1e3 * (time.perf_counter() - t0))  # fmt: skip

    return on


def kill_on_modify(fold):
    """An ``on_event``: SIGKILL at the first ``IN_MODIFY`` of a temporary file in ``fold``."""

    def on(p, d, kind, name):
        if d == fold and kind == "modify" and not R20.CHUNK.fullmatch(name):
            os.kill(p.pid, signal.SIGKILL)
            return dict(name=name, seen=None, polls=0, ms=0.0)
        return None

    return on


def _chunk_of(folder, name):
    """The chunk file in ``folder`` that temporary file ``name`` (``<stem>.<hex>.partial``) is
    written for: the one whose name less its last part is ``<stem>`` (as seen here, the
    chunk key's last part gives way to the hex; the documents say only ``*.partial``)."""
    stem = name.rsplit(".", 2)[0]
    got = [p for p in Path(folder).iterdir()
           if R20.CHUNK.fullmatch(p.name) and p.name.rsplit(".", 1)[0] == stem]  # fmt: skip
    return got[0] if len(got) == 1 else None


def keep_toml(a, name, n):
    """``R18.sub_toml``'s 6-cell point-rate spec (24 compute hours) with ``keep_trials``."""
    t = R18.sub_toml(a, name, a.seed, n, 24.0)
    t.write_text(t.read_text().replace('posterior = "point"\n',
                                       'posterior = "point"\nkeep_trials = true\n'))  # fmt: skip
    return t


def _nfiles(st):
    return sum(1 for p in Path(st).rglob("*") if p.is_file())


def run_killmid(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    n = 400_000 if not a.smoke else 300_000
    toml = keep_toml(a, f"km21_{S}", n)
    sp = SweepSpec.from_toml(toml)
    cube = R16.inproc_cube(a, sp, "km21", "killmid", neg)
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    keyof = lambda i: "c." + ".".join(map(str, np.unravel_index(i, sp.shape)))  # noqa: E731
    st = a.out / f"km21_kill_{S}.zarr"
    R18._fresh(st)
    R18._sweep_run([toml, "--store", st, "--cells", "5"], "--cells 5 (creates the store)")
    # survey: a whole cell's writes, IN_MODIFY per temporary file
    full = watched(_run_cells(toml, st, 4), st)
    mods, order = {}, []
    for d, k, nm in full["ev"]:
        if k == "create" and not R20.CHUNK.fullmatch(nm):
            mods[(d, nm)] = 0
            order.append(d)
        elif k == "modify" and (d, nm) in mods:
            mods[(d, nm)] += 1
    key4 = keyof(4)
    size = {v: (st / v / f"{key4}.0").stat().st_size for v in tv
            if (st / v / f"{key4}.0").exists()}  # fmt: skip
    size.update({v: (st / v / f"{key4}.0.0").stat().st_size for v in tv
                 if (st / v / f"{key4}.0.0").exists()})  # fmt: skip
    big = sorted(size, key=size.get)[::-1]
    hist = {c: sum(1 for x in mods.values() if x == c) for c in sorted(set(mods.values()))}
    print(f"  a whole cell (4): rc {full['rc']}; {len(mods)} temporary files; IN_MODIFY per "
          f"temporary file (count: files) {hist}; per-trial chunks by size (bytes) "
          f"{[(v, size[v]) for v in big[:6]]}; SCHED_FIFO {full['fifo']}")  # fmt: skip
    print(
        f"  observation: the largest chunk ({big[0]}, {size[big[0]]:,} bytes) went through "
        f"{mods.get(next((k for k in mods if k[0] == big[0]), None), '?')} write call(s)"
    )
    ck[
        "survey: every chunk through a temporary file with at least one write (IN_MODIFY) "
        "before its rename; none left"
    ] = full["rc"] == 0 and bool(mods) and min(mods.values()) >= 1 and not R20._temps(st)
    # mid-write kills in chunks above 2.2 MB (more than one 2-MiB page-cache step), the
    # largest, ettr and the last written of the others; wall_hours killed at its IN_MODIFY
    pertrial = [d for d in dict.fromkeys(order) if d in tv]
    mids = [v for v in big if size[v] > 2_200_000 and v != "wall_hours"]
    m1 = "ettr" if "ettr" in mids[1:] else mids[min(1, len(mids) - 1)]
    m3 = next((v for v in reversed(pertrial) if v in mids and v not in (mids[0], m1)), mids[-1])
    kills = {0: (mids[0], "mid-write"), 1: (m1, "mid-write"), 2: ("wall_hours", "modify"),
             3: (m3, "mid-write")}  # fmt: skip
    print(f"  kills planned {kills}")
    rec = {}
    for cell, (fold, how) in kills.items():
        for attempt in (1, 2, 3):
            on = kill_in_write(fold, st) if how == "mid-write" else kill_on_modify(fold)
            k = watched(_run_cells(toml, st, cell), st, on)
            left = dict(R20._temps(st))
            h = k["hit"]
            tmp = f"{fold}/{h['name']}" if h else None
            sz = left.get(tmp)
            ren = [(d, nm) for d, kk, nm in k["ev"][h["at"] :] if kk == "to"] if h else []
            print(f"  SIGKILL cell {cell} {how} of {fold} (try {attempt}): rc {k['rc']}; hit "
                  f"{h}; renames after it {ren}; the temporary file left {sz} bytes; events "
                  f"of it {[kk for d, kk, nm in k['ev'] if h and nm == h['name']]}")  # fmt: skip
            ok = k["rc"] == -9 and h is not None and sz is not None and not ren
            if how == "mid-write":
                ok = ok and sz > 0
            if ok or attempt == 3:
                break
        files = R20._cell_files(st, keyof(cell))
        k.update(files=files, tmp=tmp, size=sz, renames=ren, attempts=attempt, fold=fold,
                 how=how, flag=f"done/{keyof(cell)}" in files)  # fmt: skip
        rec[cell] = k
    ck["[SIGKILL] 4 kills landed (rc -9, no rename after, the temporary file left; for the "
       "three mid-write kills not empty; the target chunk and the flag not in place)"] = all(
        k["rc"] == -9 and k["tmp"] and k["size"] is not None and not k["renames"]
        and not k["flag"] and not any(f.startswith(k["fold"] + "/") for f in k["files"])
        and (k["how"] != "mid-write" or k["size"] > 0) for k in rec.values())  # fmt: skip
    print(f"  attempts per kill {[k['attempts'] for k in rec.values()]}")
    done, miss, corrupt = R18._status(st, verify=True)
    print(f"  status --verify after the kills: done {done}, missing {miss}, corrupt {corrupt}")
    ck["[SIGKILL] status --verify: the 4 killed cells missing, none corrupt, 4 and 5 done"] = (
        miss == [0, 1, 2, 3] and not corrupt and done == [4, 5])  # fmt: skip
    r = subprocess.run(["relmc", "sweep", "status", str(st), "--verify"], env=ENV,
                       capture_output=True, text=True)  # fmt: skip
    print(f"  $ relmc sweep status --verify: rc {r.returncode}: {_lines(r)[-300:]!r}")
    ck["[SIGKILL] relmc sweep status --verify: rc 0, none named corrupt"] = (
        r.returncode == 0 and "corrupt" not in _lines(r).lower())  # fmt: skip
    b2, m2 = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    neg[("killmid", "SIGKILL", "the store after the kills == in-process cube")] = (
        not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ")  # fmt: skip
    left_before = R20._temps(st)
    r = R18._sweep_run([toml, "--store", st], "rerun")
    m = re.search(r"computed (\d+) cells", _lines(r))
    ck["[rerun] relmc sweep run rc 0, computes exactly the 4 killed cells, no warning"] = (
        r.returncode == 0 and m is not None and int(m.group(1)) == 4
        and "warning" not in r.stderr.lower())  # fmt: skip
    left_after = R20._temps(st)
    ck["[rerun] the temporary files are kept (same names and sizes)"] = left_after == left_before
    done, miss, corrupt = R18._status(st, verify=True)
    ck["[rerun] status --verify: all done, none corrupt"] = (
        not miss and not corrupt and len(done) == sp.n_cells)  # fmt: skip
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    ck["[rerun] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)
    # what the kills left against the chunks the rerun wrote
    prefix, whole, partial = 0, 0, 0
    for cell, k in rec.items():
        if not k["tmp"] or k["size"] is None:
            continue
        lb = (st / k["tmp"]).read_bytes()
        fin = _chunk_of(st / k["fold"], k["tmp"].split("/")[1]).read_bytes()
        pre = fin[: len(lb)] == lb
        prefix += pre
        whole += len(lb) == len(fin)
        partial += 0 < len(lb) < len(fin)
        print(f"  cell {cell} ({k['how']} of {k['fold']}): left {len(lb):,} of the chunk's "
              f"{len(fin):,} bytes ({len(lb) / len(fin):.3f}); its leading bytes "
              f"{'equal' if pre else 'differ'}")  # fmt: skip
    ck["[left] each temporary file holds the leading bytes of the chunk the rerun wrote"] = (
        prefix == len(rec))  # fmt: skip
    ck["[left] the kill at IN_MODIFY left the whole chunk"] = (
        (st / rec[2]["tmp"]).stat().st_size == _chunk_of(
            st / "wall_hours", rec[2]["tmp"].split("/")[1]).stat().st_size)  # fmt: skip
    ck["[docs] every temporary file left is empty or whole ('*.partial, empty or whole')"] = (
        partial == 0)  # fmt: skip
    print(f"  temporary files left: {len(rec)}; whole {whole}, partly written {partial}")
    # pack in place: its file count includes the temporary files
    nf = _nfiles(st)
    r = subprocess.run(["taskset", "-c", "1", "relmc", "sweep", "pack", str(st)], env=ENV,
                       capture_output=True, text=True)  # fmt: skip
    mm = re.search(r"(\d[\d,]*) files -> (\d[\d,]*) files", _lines(r))
    print(f"  $ relmc sweep pack STORE: rc {r.returncode}: {_lines(r)[-300:]!r}; files before "
          f"{nf} (temporary {len(left_after)}), after {_nfiles(st)}; temporary files "
          f"{R20._temps(st)}")  # fmt: skip
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    ck["[pack] rc 0; no temporary file after it; its 'N files' counts them; cube == in "
       "process (bit)"] = (
        r.returncode == 0 and not R20._temps(st) and mm is not None
        and int(mm.group(1).replace(",", "")) == nf and not (bad or miss))  # fmt: skip
    diskfull(a, toml, sp, cube, keyof, ck, neg)
    return ck, neg, {}


def fill_disk(mnt, leave):
    """An ``on_event``: at the first temporary file's creation, fill the file system at
    ``mnt`` (another file, ``filler``) to ``leave`` bytes free."""

    def on(p, d, kind, name):
        if kind != "create" or R20.CHUNK.fullmatch(name):
            return None
        sv = os.statvfs(mnt)
        avail = sv.f_bavail * sv.f_frsize
        fd = os.open(mnt / "filler", os.O_CREAT | os.O_WRONLY)
        try:
            os.posix_fallocate(fd, 0, max(1, avail - leave))
        finally:
            os.close(fd)
        sv = os.statvfs(mnt)
        return dict(name=f"{d}/{name}", before=avail, free=sv.f_bavail * sv.f_frsize)

    return on


API_RUN = """import sys, relmc
try:
    relmc.sweep.run_sweep(sys.argv[1], sys.argv[2], cells=[int(sys.argv[3])], n_threads=1)
except Exception as e:
    print("EXC", type(e).__name__, isinstance(e, OSError), repr(str(e)))
    sys.exit(3)
print("OK")
"""


def diskfull(a, toml, sp, cube, keyof, ck, neg):
    """The store on a tmpfs of its own (mounted under ``--out``, unmounted after) filled by
    another file once a cell's first temporary file appears: the CLI, then the API."""
    S = a.seed
    mnt = a.out / f"full21_{S}"
    mnt.mkdir(exist_ok=True)
    if os.path.ismount(mnt):
        subprocess.run(["umount", str(mnt)], check=False)
    mb = 3 * sp.n_trials // 1000
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={mb}m", "tmpfs", str(mnt)],
                       capture_output=True, text=True)  # fmt: skip
    if r.returncode or not os.path.ismount(mnt):
        print(f"  [full disk] mount refused ({r.stderr.strip()!r}): not checked")
        ck["[full disk] a tmpfs of its own mounted"] = False
        return
    try:
        st = mnt / "s.zarr"
        R18._sweep_run([toml, "--store", st, "--cells", "5"], "full disk: --cells 5")
        leave = 1 << 20
        k = watched(_run_cells(toml, st, 0), st, fill_disk(mnt, leave))
        errl = [x for x in k["err"].splitlines() if x.strip()]
        print(f"  [full disk] relmc sweep run --cells 0 on {mb} MiB, filled at {k['hit']}: rc "
              f"{k['rc']}; stdout {k['out'].strip()!r}; stderr {errl}")  # fmt: skip
        temps = R20._temps(st)
        done, miss, corrupt = R18._status(st, verify=True)
        chunks = R20._cell_files(st, keyof(0))
        print(f"  [full disk] temporary files {temps}; cell 0's chunks in place {len(chunks)}; "
              f"status --verify: done {done}, missing {miss}, corrupt {corrupt}")  # fmt: skip
        ck["[full disk, CLI] the run ends, rc != 0, one line naming the store and the cell"] = (
            k["rc"] not in (0, None) and len(errl) == 1 and str(st) in errl[0]
            and re.search(r"\bcell 0\b", errl[0]) is not None)  # fmt: skip
        print(f"  [full disk, CLI] exit status {k['rc']} (the documents state none for a "
              f"failed write)")  # fmt: skip
        ck["[full disk, CLI] no temporary file left; cell 0 not done, none corrupt, 5 done"] = (
            not temps and 0 in miss and not corrupt and done == [5])  # fmt: skip
        (mnt / "filler").unlink()
        code = ["taskset", "-c", "1", sys.executable, "-c", API_RUN, str(toml), str(st), "1"]
        k = watched(code, st, fill_disk(mnt, leave))
        print(f"  [full disk, API] run_sweep(cells=[1]) in a child, filled at {k['hit']}: rc "
              f"{k['rc']}; stdout {k['out'].strip()!r}; stderr "
              f"{k['err'].strip()[-300:]!r}")  # fmt: skip
        mt = re.match(r"EXC (\w+) (True|False) (.*)", k["out"].strip())
        temps = R20._temps(st)
        done, miss, corrupt = R18._status(st, verify=True)
        ck["[full disk, API] one OSError naming the store and the cell; no temporary file; "
           "cell 1 not done"] = (
            mt is not None and mt.group(2) == "True" and str(st) in mt.group(3)
            and re.search(r"\bcell 1\b", mt.group(3)) is not None and not temps
            and 1 in miss and not corrupt)  # fmt: skip
        b2, m2 = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        neg[("killmid", "full disk", "the store after the failed writes == in-process cube")] = (
            not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ")  # fmt: skip
        (mnt / "filler").unlink()
        r = R18._sweep_run([toml, "--store", st], "full disk: rerun")
        m = re.search(r"computed (\d+) cells", _lines(r))
        done, miss, corrupt = R18._status(st, verify=True)
        bad, mi = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        ck["[full disk] the rerun: rc 0, computes the 5 missing cells; all verified; cube == "
           "in process (bit)"] = (
            r.returncode == 0 and m is not None and int(m.group(1)) == 5 and not miss
            and not corrupt and not (bad or mi))  # fmt: skip
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
        print(f"  [full disk] unmounted: {not os.path.ismount(mnt)}")


# ---------------------------------------------------------------- 2: requeued, then failed
def fail_second(a, job_tag):
    """A ``--python`` wrapper: a task's first run is ``taskset -c 1 python``; its second run
    (a marker file from the first) exits 1 with a line on stderr."""
    w = a.out / f"python_fail2nd_{job_tag}.sh"
    marks = a.out / f"marks_{job_tag}"
    shutil.rmtree(marks, ignore_errors=True)
    marks.mkdir()
    w.write_text(
        "#!/bin/sh\n"
        f'm="{marks}/ran_${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}"\n'
        'if [ -e "$m" ]; then\n'
        '  echo "r21 wrapper: second run of task ${SLURM_ARRAY_TASK_ID}: exit 1" >&2\n'
        "  exit 1\nfi\n"
        'touch "$m"\n'
        f'exec taskset -c 1 {sys.executable} "$@"\n'
    )
    w.chmod(0o755)
    return w


def run_failrequeue(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    if not R18.slurm_up():
        return {"local Slurm is up": False}, neg, {}
    n_heavy = 50_000 if not a.smoke else 30_000
    toml = R18.sub_toml(a, f"fr21_{S}", S, n_heavy, 20_000.0)
    sp = SweepSpec.from_toml(toml)
    cube = R16.api_cube(a, sp, f"fr21_inproc_{S}")
    print(f"in process: {sp.n_cells} cells; mean ETTR {np.round(cube['ettr_mean'].values, 4)}")
    st = a.out / f"fr21_{S}.zarr"
    R18._fresh(st)
    w = fail_second(a, f"fr21_{S}")
    s = R18.Submission([toml, "--store", st, "--array", 2, *R20._base(w), "--wait"], "wait")
    t_sub = time.time()
    print(f"  submitted: first line {s.first.strip()!r}; job {s.job}")
    ck["--wait prints the job id as soon as Slurm accepts it"] = s.job is not None
    if s.job is None:
        s.wait()
        return ck, neg, {}
    try:
        own0 = [i for i in range(sp.n_cells) if i % 2 == 0]
        done_at = R18._wait_cells(st, own0)
        left = sorted(set(own0) - set(done_at or []))
        rq = subprocess.run(["scontrol", "requeue", f"{s.job}_0"], capture_output=True,
                            text=True)  # fmt: skip
        t_rq = time.time()
        print(f"  scontrol requeue {s.job}_0 ({t_rq - t_sub:.1f}s after the submission): rc "
              f"{rq.returncode} {rq.stderr.strip()!r}; done {done_at}, task 0's left "
              f"{left}")  # fmt: skip
        ck["task 0 requeued mid-run (rc 0; a cell of its shard done, another not)"] = (
            rq.returncode == 0 and bool(done_at) and bool(left))  # fmt: skip
        states, t_exit, at_exit, t_live = [], None, None, None
        while time.time() - t_rq < 480:
            q = R18._squeue("%i %T %r", s.job, "all")
            if any(x.split()[0] == f"{s.job}_0" and x.split()[1] not in R20.TERMINAL
                   for x in q):  # fmt: skip
                t_live = time.time()
            if q and (not states or states[-1][1] != q):
                states.append((round(time.time() - t_rq, 1), q))
            if s.p.poll() is not None:
                t_exit = time.time()
                at_exit = R18._status(st)
                break
            time.sleep(0.3)
        s.wait()
        print(f"  task states since the requeue: {states}")
        print(f"  --wait exited {None if t_exit is None else round(t_exit - t_rq, 1)}s after "
              f"the requeue (the requeued task last seen unfinished "
              f"{None if t_live is None else round(t_live - t_rq, 1)}s); the store then "
              f"{at_exit}")  # fmt: skip
        ck["--wait returned after the requeued task's second run had ended"] = bool(
            t_exit is not None and t_live is not None and t_exit >= t_live)  # fmt: skip
        ck["--wait: exit status 1 (a task failed)"] = s.rc == 1
        logs, nc = R18._task_logs(st)
        err = s.err.strip()
        logdir = str(Path(f"{st}.slurm"))
        ck["--wait's message names the job, its task logs and the store"] = (
            s.job in err and (logdir in err or any(k in err for k in logs))
            and str(st) in err)  # fmt: skip
        print(f"  logs { {k: v.strip()[-300:] for k, v in logs.items()} }")
        l0 = next((v for k, v in logs.items() if k.endswith("_0.out")), "")
        l1 = next((v for k, v in logs.items() if k.endswith("_1.out")), "")
        ck["task 0's log starts afresh: the wrapper's line, no 'computed' line"] = (
            "second run of task 0" in l0 and "computed" not in l0)  # fmt: skip
        ck["task 1 (not requeued) computed its 3 cells"] = bool(
            re.search(r"computed 3 cells", l1))  # fmt: skip
        R18._wait_gone(s.job, 120)
        done, miss, corrupt = R18._status(st, verify=True)
        print(f"  status --verify after --wait: done {done}, missing {miss}, corrupt {corrupt}")
        ck[
            "the store: task 0's cells unfinished at the requeue missing, the rest done, none "
            "corrupt"
        ] = miss == left and not corrupt and len(done) == sp.n_cells - len(left)
        b2, m2 = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        neg[("failrequeue", None, "the store when --wait returned == in-process cube")] = (
            not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ; missing "
            f"{at_exit[1] if at_exit else None}")  # fmt: skip
        # submit again: the new array takes the cells still missing
        py1 = R18.py_core1(a)
        arr = max(1, min(2, len(miss)))
        r = R18._dry_run(toml, st, "--array", arr, *R20._base(py1))
        sarr, cl = R18._script(r)
        print(f"  submit again --dry-run: --array={sarr}; cells {cl!r}")
        ck["submit again --dry-run: the list is the cells missing"] = (
            cl is not None and R18._cells(cl) == miss)  # fmt: skip
        s2 = R18.Submission([toml, "--store", st, "--array", arr, *R20._base(py1), "--wait"],
                            "again").wait()  # fmt: skip
        logs, _ = R18._task_logs(st)
        nc = sum(int(x) for k, v in logs.items() if k.startswith(f"slurm-{s2.job}_")
                 for x in re.findall(r"computed (\d+) cells", v))  # fmt: skip
        done, miss2, corrupt = R18._status(st, verify=True)
        bad, mi = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        ck["submit again --wait: rc 0, its tasks compute the missing cells; all verified; cube "
           "== in process (bit)"] = (
            s2.rc == 0 and nc == len(miss) and not miss2 and not corrupt
            and not (bad or mi))  # fmt: skip
        R18._wait_gone(s2.job, 120)
    finally:
        for j in (s.job,):
            if R18._squeue("%i", j, "all"):
                subprocess.run(["scancel", str(j)], check=False)
    return ck, neg, {}


# ---------------------------------------------------------------- 3: lemons + spread, points
K_SP, L_SP = 3.0, 1.5


def ls_spec(L=L_SP, spread=True, f=0.15):
    """64 GPUs, 24 h; lemons ``f`` x 20, detection 2 in 48 h, 4 spares (4-h repairs),
    retention 3; ``crash`` (0.25 / job-hour, restart) and ``silent`` (SDC, 0.15 / job-hour,
    swap, fixed latency ``L``); ``sdc_latency_spread`` 3 (``spread``)."""
    cats = [ncat("crash", 0.25), ncat("silent", 0.15, kind="sdc", swap=True, sdc_L=L)]
    return node_spec(W=24.0, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=4,
                     repair_h=4.0, f=f, m=20.0, lemon_k=2, lemon_win=48.0, K=3,
                     cap_factor=20.0, spreads={"sdc_latency": K_SP} if spread else None,
                     cats=cats)  # fmt: skip


def _indep_mean(comp, key, var):
    rows = comp[key]["rows"]
    return {r[0]: r[3] for r in rows}.get(var, float("nan"))


def run_lemonspread(a):
    ck, neg, comp = {}, {}, {}
    S = a.seed
    sig = math.log(K_SP) / M8.Z95
    Lmean = L_SP * math.exp(sig * sig / 2)
    print(f"spread {K_SP}: sigma {sig:.4f}; latency median {L_SP} h, mean {Lmean:.4f} h")
    spec = ls_spec()
    sc = indep_nodes.build_relmc(spec)
    sil = next(c for c in sc.failures.categories if c.name == "silent")
    cr = next(c for c in sc.failures.categories if c.name == "crash")
    ck["the built scenario: spread 3, SDC fixed 1.5 h swap, crash restart, lemons 0.15 x 20, "
       "detection 2 in 48 h"] = (
        sc.policy.sdc_latency_spread == K_SP and sil.sdc_latency_hours == L_SP
        and sil.recovery == "swap" and cr.recovery == "restart"
        and sc.failures.bad_node_fraction == 0.15 and sc.failures.bad_node_multiplier == 20.0
        and sc.policy.lemon_failures == 2 and sc.policy.lemon_window_hours == 48.0
    )  # fmt: skip
    n_pt = min(a.n_sim, 4096)
    P = relmc.simulate(sc, n_trials=n_pt, seed=S, n_threads=1)
    ck["trial i runs draw i mod 4096 (draw == arange)"] = bit(P.draw.values, np.arange(n_pt))
    Pns = relmc.simulate(indep_nodes.build_relmc(ls_spec(spread=False)), n_trials=n_pt, seed=S,
                         n_threads=1)  # fmt: skip
    neg[("lemonspread", None, "the same without the spread (ettr)")] = (bit(P.ettr, Pns.ettr), "")
    exb, exg = float(P.nodes_excluded_bad.mean()), float(P.nodes_excluded_good.mean())
    print(f"  {n_pt} trials: mean ETTR {float(P.ettr.mean()):.4f} (without the spread "
          f"{float(Pns.ettr.mean()):.4f}), finished {float(P.finished.mean()):.3f}; excluded bad "
          f"{exb:.3f}, good {exg:.3f} a trial; trials with an exclusion "
          f"{float((P.nodes_excluded_bad + P.nodes_excluded_good > 0).mean()):.3f}")  # fmt: skip
    variants = {"fixed latency of the same mean": ls_spec(L=Lmean, spread=False),
                "spread ignored": ls_spec(spread=False),
                "lemons off (f = 0)": ls_spec(f=0.0)}  # fmt: skip
    shown = (
        "events",
        "int_crash",
        "int_silent",
        "sdc_rollbacks",
        "sdc_from_scratch",
        "nodes_excluded_bad",
        "nodes_excluded_good",
        "repairs_auto",
        "pool_occupancy",
    )
    R20._compare(a, "point", P, sc, lambda k, v: variants[v] if v else spec, 1, 21_300, comp,
                 "lemonspread", tuple(variants), shown)  # fmt: skip
    ib = _indep_mean(comp, ("lemonspread", "point", 0, "documented"), "nodes_excluded_bad")
    ck[
        "nodes are excluded: at least 0.5 bad nodes a trial in relmc and in the independent model"
    ] = exb >= 0.5 and ib >= 0.5
    return ck, neg, comp


# ---------------------------------------------------------------- 4: frailty + cycle + trend
FT = dict(n_gpus=2048, duration_hours=200.0, fleet_age=200.0, trend=0.3, N=128, W=48.0, K=8,
          amp={"gpu": 0.7, "net": 0.4}, peak={"gpu": 14.0, "net": 3.0})  # fmt: skip


def ft_file(a):
    """A young fleet's log (2,048 GPUs, 200 h from age 200 h, trend 0.3, daily cycles 0.7 at
    14 h / 0.4 at 3 h, gamma frailty of variance 0.5, seed 5) fitted with ``nodes="frailty",
    diurnal="category", trend=True`` (2 x 50 draws after 200 tuning steps, seed 1), cut to
    one draw of each chain; cached in ``--out``. (A fleet 40 h old at the window's start made
    NUTS take minutes for a few dozen steps, with or without the frailty.)"""
    import arviz as az

    path = a.out / "ft21_fit.nc"
    if not path.exists():
        ev = relmc.events.synthetic_events(
            {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=FT["n_gpus"],
            duration_hours=FT["duration_hours"], units={"gpu": "gpu", "net": "node"},
            diurnal_amplitude=FT["amp"], diurnal_peak_hour=FT["peak"],
            trend_shape=FT["trend"], fleet_age_at_start_hours=FT["fleet_age"],
            frailty_variance=0.5, seed=5,
        )  # fmt: skip
        print(f"log: counts {ev['count'].values.tolist()}")
        t0 = time.time()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fe = relmc.fit_events(ev, nodes="frailty", diurnal="category", trend=True,
                                  n_draws=50, n_tune=200, n_chains=2, cores=1,
                                  seed=1)  # fmt: skip
        print(f"fit_events(nodes='frailty', diurnal='category', trend=True) "
              f"{time.time() - t0:.1f}s; warnings "
              f"{sorted({type(x.message).__name__ for x in w})}")  # fmt: skip
        fe.to_netcdf(path)
    pf = R18._thin(a, az.from_netcdf(path), "ft21_thin.nc")
    return pf, az.from_netcdf(pf)


def with_physics(sc, amp, peak, beta, A0):
    """``sc`` with the fit's categories at the cycles ``amp`` / ``peak`` (by category) and the
    failure model at trend ``beta`` from age ``A0``."""
    cats = tuple(dataclasses.replace(c, diurnal_amplitude=float(amp[c.name]),
                                     diurnal_peak_hour=float(peak[c.name]))
                 if c.name in amp else c for c in sc.failures.categories)  # fmt: skip
    return dataclasses.replace(
        sc,
        failures=dataclasses.replace(
            sc.failures, categories=cats, trend_shape=float(beta), fleet_age_hours=float(A0)
        ),
    )


def run_frailtrend(a):
    ck, neg, comp = {}, {}, {}
    S = a.seed
    C9.SEED = S
    pf, idata = ft_file(a)
    post = idata.posterior
    terms = post.attrs.get("model_terms")
    print(
        f"file: variables {sorted(post.data_vars)}; model_terms {terms}; fleet_age_hours "
        f"{post.attrs.get('fleet_age_hours')}; start_hour {post.attrs.get('start_hour')}"
    )
    need = ("frailty_variance", "diurnal_amplitude", "diurnal_peak_hour", "trend_shape")
    ck["the fit holds the frailty, the cycles and the trend (terms combine)"] = all(
        v in post for v in need) and "bad_node_fraction" not in post  # fmt: skip
    d0 = default_scenario(idata)
    sc = R20.fr_scen(d0, pol=dict(R20.FPOL, checkpoint_retention=FT["K"]))
    sc = R6.at_size(R9.with_compute(sc, FT["W"]), FT["N"])
    cats = [c.name for c in d0.failures.categories]
    amp, peak = (M8.flat(post[v]) for v in ("diurnal_amplitude", "diurnal_peak_hour"))
    beta = post["trend_shape"].transpose("draw", "chain").values.ravel()
    A0 = float(post.attrs["fleet_age_hours"])
    print(f"  categories {cats}; amplitude {np.round(amp, 3).tolist()}; peak "
          f"{np.round(peak, 2).tolist()}; trend {np.round(beta, 3).tolist()}; fleet age {A0}; "
          f"frailty_variance {np.round(post['frailty_variance'].values.ravel(), 3).tolist()}; "
          f"start hour of the job {sc.job.start_hour}")  # fmt: skip
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        P = relmc.simulate(sc, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
    uw = R19._warned(w)
    print(f"  simulate's notes: {uw}")
    ck["simulate: one note, naming frailty_variance and saying the scenario's lemons apply; "
       "none on the cycles or the trend"] = (
        len(uw) == 1 and "frailty_variance" in uw[0] and "lemons of its own" in uw[0]
        and not any(x in uw[0] for x in ("diurnal", "trend_shape", "fleet_age")))  # fmt: skip
    ph = physics_draws(sc, idata)
    nf = len(cats)
    print(f"  physics_draws: amplitude {np.round(ph.diurnal_amplitude, 3).tolist()}, peak "
          f"{np.round(ph.diurnal_peak_hour, 2).tolist()} over "
          f"{[c.name for c in sc.failures.categories]}")  # fmt: skip
    ck["physics_draws: the file's cycles for its categories (the SDC its own 0), trend and "
       "fleet age; no lemon rows"] = bool(
        bit(ph.diurnal_amplitude[:, :nf], amp) and bit(ph.diurnal_peak_hour[:, :nf], peak)
        and not ph.diurnal_amplitude[:, nf:].any() and bit(ph.trend_shape, beta)
        and ph.fleet_age_hours == A0 and ph.bad_node_fraction is None
        and ph.bad_node_multiplier is None)  # fmt: skip
    me = M8.Mine(idata, sc)
    ck["job_rates == my Lambda + the SDC's rate (rel)"] = float(
        np.abs(job_rates(sc, rate_draws(sc, idata)) / me.lam(FT["N"], fixed=True) - 1).max()
    )
    out = a.out / f"ft21_sim_{S}"
    shutil.rmtree(out, ignore_errors=True)
    toml = R20.fr_toml(a, S)
    txt = toml.read_text()
    for x, y in (
        (f"n_gpus = {R20.FN}\n", f"n_gpus = {FT['N']}\n"),
        (f"compute_hours = {R20.FW}\n", f"compute_hours = {FT['W']}\n"),
        ("checkpoint_retention = 4\n", f"checkpoint_retention = {FT['K']}\n"),
    ):
        assert txt.count(x) == 1, x
        txt = txt.replace(x, y)
    toml.write_text(txt)  # R20's TOML at this round's size, hours and retention
    rc = C9.cli(["simulate", str(toml), "--posterior", str(pf), "--n-trials",
                 str(a.n_sim)], out)  # fmt: skip
    ck["relmc simulate TOML --posterior rc 0"] = rc == 0
    if rc == 0:
        Q = xr.open_dataset(out / "simulation.nc").load()
        bad, miss = C9.diff_vars(P, Q)
        print(f"  relmc simulate vs simulate: {len(P.data_vars)} variables, differing {bad}, "
              f"missing {miss}")  # fmt: skip
        ck["relmc simulate TOML --posterior == simulate(my scenario, rates=file, seed) every "
           "variable (bit)"] = not (bad or miss)  # fmt: skip

    def sc_at(base, k, var=None):
        ak = dict(zip(cats, amp[k] * (0.0 if var == "amplitude 0" else 1.0), strict=True))
        pk = dict(zip(cats, peak[k], strict=True))
        return with_physics(base, ak, pk, 1.0 if var == "no trend" else beta[k], A0)

    def spec_of(base, k, var):
        return R20.fr_spec(sc_at(base, k, var), me, k, var)

    s0 = spec_of(sc, 0, None)
    dif = R17._policy_diff(s0, sc, skip=("maintenance_rate", "trend_shape", "fleet_age_hours"))
    dif += R18._cat_diff(s0, sc)
    ck["indep spec's policy / job / failure model / SDC == mine (the trend: the draw's)"] = (
        not dif and s0["beta"] == beta[0] and s0["A0"] == A0)  # fmt: skip
    if dif:
        print(f"    indep spec differs in {dif}")
    print(f"  my f {np.round(me.f(), 5).tolist()}; fitted job rates over f "
          f"{np.round(me.fitted(FT['N']) / me.f()[:, None], 4).tolist()}; mean ETTR "
          f"{float(P.ettr.mean()):.4f}, finished {float(P.finished.mean()):.3f}")  # fmt: skip
    shown = ("events", "int_gpu", "int_net", "int_silent", "sdc_rollbacks",
             "nodes_excluded_bad", "nodes_excluded_good", "repairs_auto")  # fmt: skip
    # each draw on its own (its trials, nd = 1): the lemon / SDC misreadings on draw 0, no
    # trend on the draw with the stronger burn-in; then an 8-h job from 10:00 (the gpu peak
    # within reach) for the daily cycle, amplitude 0 on draw 0
    kt = int(np.argmin(beta))
    for k, variants in ((0, ("SDC at the model's multiplier",
                             "the fit's categories at multiplier 1", "lemons off (f = 0)")),
                        (1, ("no trend",) if kt == 1 else ())):  # fmt: skip
        if k == 0 and kt == 0:
            variants += ("no trend",)
        Pk = P.isel(trial=np.flatnonzero(P.draw.values == k))
        R20._compare(a, f"{FT['W']:g} h, d{k}", Pk, sc,
                     lambda _, v, k=k: spec_of(sc, k, v), 1, 21_500 + 10 * k, comp,
                     "frailtrend", variants, shown)  # fmt: skip
    scs = dataclasses.replace(sc, job=dataclasses.replace(sc.job, compute_hours=8.0,
                                                          start_hour=10.0))  # fmt: skip
    Ps = relmc.simulate(scs, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
    print(f"  8-h job from 10:00: mean ETTR {float(Ps.ettr.mean()):.4f}; events a trial "
          f"{float(Ps.events.mean()):.3f}")  # fmt: skip
    R20._compare(a, "8 h from 10:00", Ps, scs, lambda k, v: spec_of(scs, k, v), 2, 21_600,
                 comp, "frailtrend", ("amplitude 0",), shown)  # fmt: skip
    P2 = relmc.simulate(sc, rates=idata, n_trials=a.n_sim, seed=S + 1, n_threads=1)
    neg[("frailtrend", None, "simulate seed + 1 (ettr)")] = (bit(P.ettr, P2.ettr), "")
    return ck, neg, comp


# ---------------------------------------------------------------- 5: compare and sweep, fleets
MAXES = {"failures.maintenance_hours": [0.5, 2.0], "policy.restart_hours": [0.2, 0.6]}


def fm_toml(a, pf, lab, fld):
    toml = a.out / f"fmsweep21_{lab.replace(' ', '_')}_{a.seed}.toml"
    toml.write_text(
        f'seed = {a.seed}\nn_trials = {a.n_sim}\nposterior = "{pf}"\n'
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/fmsweep21_default.zarr"\n\n[base]\n'
        f"cluster.n_gpus = {R20.CN}\njob.compute_hours = 48.0\n"
        "policy.checkpoint_interval = 0.5\npolicy.snapshot_hours = 0.03\n" + fld
        + "\n[axes]\n" + "".join(f'"{k}" = {v}\n' for k, v in MAXES.items())
    )  # fmt: skip
    return toml


def run_fleetmaintcmp(a):
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    C9.SEED = S
    rec = R20.CM / R20.CH
    rc, txt, pf = R20.fleets_fit(a)
    ck["the fleets file (relmc fit --counts ... --observed-maintenance 18 --fleet ...) rc 0"] = (
        rc == 0 and pf is not None)  # fmt: skip
    if pf is None:
        return ck, neg, {}
    fe = az.from_netcdf(pf)
    ra = fe.posterior["rate"].attrs.get("maintenance_rate")
    print(f"file: rate.attrs maintenance_rate {ra}; posterior attrs "
          f"{fe.posterior.attrs.get('maintenance_rate')}; fleets "
          f"{fe.posterior['fleet'].values.tolist()}")  # fmt: skip
    ck["the file records 18 / 720 h (rate.attrs)"] = ra is not None and float(ra) == rec
    sc = R20._scen(fe, R20.CN)
    ck["default_scenario(file) + the flags: maintenance_rate == the record"] = (
        sc.failures.maintenance_rate == rec)  # fmt: skip
    # relmc compare --posterior, three ways
    pol = {
        "baseline": sc,
        "fast": relmc.scenario.replace_path(sc, "policy.restart_hours", 0.1),
        "nomaint": relmc.scenario.replace_path(sc, "failures.maintenance_rate", 0.0),
    }
    R19.compare_three(a, "fleetmaintcmp", pf, R20.PFL2, pol, fe, R20.CN, rec, "cmp21", ck, neg)
    # a sweep on the file: no maintenance_rate, the record set by hand, 0
    cubes, clis, sps, wn = {}, {}, {}, {}
    for lab, fld in (("record", ""), ("0.025 set", f"failures.maintenance_rate = {rec!r}\n"),
                     ("0 set", "failures.maintenance_rate = 0.0\n")):  # fmt: skip
        toml = fm_toml(a, pf, lab, fld)
        sps[lab] = SweepSpec.from_toml(toml)
        tag = lab.replace(" ", "_")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cubes[lab] = R16.api_cube(a, sps[lab], f"fmsweep21_api_{tag}_{S}")
        wn[lab] = R19._warned(w)  # UnreadFieldWarning only (NotFinishedWarning apart)
        rw = sorted({type(x.message).__name__ for x in w
                     if "relmc" in type(x.message).__module__})  # fmt: skip
        print(f"  [sweep {lab}] run_sweep's relmc warnings {rw}")
        st = a.out / f"fmsweep21_cli_{tag}_{S}.zarr"
        shutil.rmtree(st, ignore_errors=True)
        r = R16.sweep_cli([str(toml), "--store", str(st)], lab)
        ck[f"[sweep {lab}] relmc sweep run rc 0"] = r == 0
        clis[lab] = relmc.sweep.open_sweep(st, load=True) if r == 0 else None
    sp = sps["record"]
    mrs = [sp.scenario(i).failures.maintenance_rate for i in range(sp.n_cells)]
    print(f"  [sweep] {sp.n_cells} cells, dims {sp.dims}; cells' maintenance_rate {mrs}; mean "
          f"ETTR {np.round(cubes['record']['ettr_mean'].values, 4).tolist()}; with 0 "
          f"{np.round(cubes['0 set']['ettr_mean'].values, 4).tolist()}")  # fmt: skip
    ck["[sweep] every cell's scenario takes the record"] = all(x == rec for x in mrs)
    for lab in ("record", "0.025 set"):
        if clis[lab] is not None:
            b2, m2 = C9.diff_vars(cubes[lab], clis[lab])
            ck[f"[sweep {lab}] relmc sweep run == run_sweep every cube variable (bit)"] = not (
                b2 or m2)  # fmt: skip
    b2, m2 = C9.diff_vars(cubes["record"], cubes["0.025 set"])
    ck["[sweep] run_sweep: the record == maintenance_rate set to it (bit)"] = not (b2 or m2)
    if clis["record"] is not None and clis["0.025 set"] is not None:
        b2, m2 = C9.diff_vars(clis["record"], clis["0.025 set"])
        ck["[sweep] relmc sweep run: the record == maintenance_rate set to it (bit)"] = not (
            b2 or m2)  # fmt: skip
    b2, _ = C9.diff_vars(cubes["record"], cubes["0 set"])
    neg[("fleetmaintcmp", "sweep", "run_sweep with maintenance_rate = 0")] = (
        not b2, f"{len(b2)} of {len(cubes['record'].data_vars)} differ")  # fmt: skip
    if clis["0 set"] is not None and clis["record"] is not None:
        b2, _ = C9.diff_vars(clis["record"], clis["0 set"])
        neg[("fleetmaintcmp", "sweep", "relmc sweep run with maintenance_rate = 0")] = (
            not b2, f"{len(b2)} of {len(clis['record'].data_vars)} differ")  # fmt: skip
    # with maintenance_rate 0 the maintenance_hours axis: what it changes, what is said
    sp0 = sps["0 set"]
    i0, i1 = (int(np.ravel_multi_index((h, 0), sp0.shape)) for h in (0, 1))
    q0, q1 = (relmc.simulate(sp0.scenario(i), rates=fe, n_trials=a.n_sim, seed=S, n_threads=1)
              for i in (i0, i1))  # fmt: skip
    b0, _ = C9.diff_vars(q0, q1)
    print(f"  [sweep 0 set] run_sweep's UnreadFieldWarnings {wn['0 set']}; cells {i0} and {i1} "
          f"(maintenance_hours 0.5 / 2.0) simulated with one seed: {len(b0)} of "
          f"{len(q0.data_vars)} variables differ; dead_fields of cell {i1}: "
          f"{sp0.scenario(i1).dead_fields()}")  # fmt: skip
    print(f"  observation: with maintenance_rate 0 the maintenance_hours axis changes "
          f"{'nothing (bit)' if not b0 else 'the trials'} and is "
          f"{'not ' if not wn['0 set'] else ''}warned of")  # fmt: skip
    # one cell as simulate (the module docstring's seeds)
    i = sp.n_cells - 1
    Pq = relmc.simulate(sp.scenario(i), rates=fe, n_trials=a.n_sim, seed=SC.cell_seed(S, i),
                        overhead_seed=resolve_seed(S), n_threads=1)  # fmt: skip
    Sm = SC.summarize_cell(Pq, sp.quantiles)
    idx = dict(zip(sp.dims, np.unravel_index(i, sp.shape), strict=True))
    cell = cubes["record"].isel(idx)
    badv = [v for v in Sm.data_vars if v in cell.data_vars
            and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
    print(f"  [sweep] cell {i}: {len(Sm.data_vars)} summaries, differing {badv}; maintenance "
          f"events a trial {float(Pq.maintenance_events.mean()):.3f}")  # fmt: skip
    ck[f"[sweep] cell {i}'s summaries == summarize_cell(simulate(scenario(i), rates=file, "
       "cell_seed, overhead_seed=root)) (bit)"] = not badv  # fmt: skip
    return ck, neg, {}


def main(argv=None):
    modes = dict(killmid=run_killmid, failrequeue=run_failrequeue,
                 lemonspread=run_lemonspread, frailtrend=run_frailtrend,
                 fleetmaintcmp=run_fleetmaintcmp)  # fmt: skip
    R10.mode_main("r21", __doc__, {k: R19._bools(v) for k, v in modes.items()}, argv,
                  n_sim=8000, smoke_sim=512, tag_sim=True,
                  n_sim_help="relmc trials per case")  # fmt: skip


if __name__ == "__main__":
    main()
