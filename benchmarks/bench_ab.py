"""Interleaved A/B of one kernel path: the working tree's code against a git revision's.

The revision's ``relmc/sim/_kernels.py`` (``git show REV:...``) is imported beside the working
tree's as a module of its own, so both run in one process on the same inputs (built by the
working tree's ``kernel_inputs``) and the same seeds, alternately, ``--repeats`` times; each side's
best time counts (noise only slows a run). Prints ns per trial and per event of each, their
ratio (old time / new time: above 1, the working tree is faster) and which outputs are equal
bit for bit. ``--n-procs P`` repeats it in ``P`` fresh processes and prints the ratios and their
median, and each side's ns/event as a median and range over the processes: the host's noise
moves single ratios by several percent, and the same code runs up to ~14 % faster in one
process than in another, so claims rest on medians.

The revision's module gets a numba cache of its own (``~/.cache/relmc/bench_ab/<commit>``), so
a second run of the same revision does not compile it again; the working tree's uses the usual
cache. Times are process CPU time; each side runs once on 4 trials before the timings (its
compile or cache load), and the two alternate which goes first. Scenarios (Llama 3 rates and
categories, the benchmarks' policy): ``llama3`` (no planned maintenance), ``llama3_maint``,
``diurnal`` (every category a = 0.5, peak at 14:00), ``diurnal_maint``, ``diurnal_a1`` and
``diurnal_a1_maint`` (a = 1), ``diurnal18`` and ``diurnal18_maint`` (a = 0.5, category ``j``
peaking at hour ``j mod 24``: 18 shapes; ``diurnal18_rev``, the same listed rarest first, so the
two commonest come past the sixteenth: a pick at a phase counts all 24 sums at once there),
``pool`` (96 spares, 72-h repairs),
``diurnal_straggler`` (``diurnal`` with a straggler category: the physics path),
``diurnal_nodes`` (``diurnal`` with bench_nodes.py's node features: the node path) and
``diurnal_straggler_nodes`` (both: the combined path), ``physics`` (bench_physics.py's
"on" rows: a straggler and an SDC category with planned maintenance); any with
``_draws`` appended (e.g. ``diurnal18_draws``): rates per draw, 8 draws (each category's rate
times a lognormal of sd 0.2) taken by the trials in turn; any diurnal one with ``_shapes``
appended: shapes per draw, 8 draws (each category's amplitude times a lognormal of sd 0.2,
at most 1, its peak hour moved by a normal of sd 1 h: as a posterior of
``fit_events(diurnal="category")`` gives), point rates; any with ``_trend`` appended (e.g.
``diurnal_trend``, ``diurnal_nodes_trend``): a wear-out trend of shape 1.5 on a fleet
2,000 h old, as ``bench_kernel.py``'s section [6]; any of those with ``_profile`` appended
(last, e.g. ``llama3_profile``, ``diurnal_trend_profile``): every category on
``feature_sizes.py``'s 24-hour rate profile, or with ``_profiles``: category ``j``'s profile
``j`` hours later (the categories' shares change by the hour); with a diurnal cosine, the
odd categories take the profile instead and the even ones keep the cosine. Bad arguments (sizes
below 1, a revision that is not a commit, a function that is not a kernel path) end with a
usage error before anything runs.

Run: ``python benchmarks/bench_ab.py REV FUNC SCENARIO N_GPUS DAYS [--n-trials N] [--repeats R]
[--n-procs P]``, e.g. ``python benchmarks/bench_ab.py HEAD~1 _block_diurnal diurnal_maint 16384
54 --n-trials 512 --n-procs 5``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import math
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_kernel as bk  # noqa: E402
import bench_nodes  # noqa: E402
import bench_physics  # noqa: E402
import bench_procs  # noqa: E402
from feature_sizes import PROFILE  # noqa: E402

from relmc.scenario import Category, Job, replace_path  # noqa: E402
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args  # noqa: E402
from relmc.sim.simulate import kernel_inputs  # noqa: E402

SCENARIOS = (
    "llama3",
    "llama3_maint",
    "diurnal",
    "diurnal_maint",
    "diurnal_a1",
    "diurnal_a1_maint",
    "diurnal18",
    "diurnal18_maint",
    "diurnal18_rev",
    "pool",
    "diurnal_straggler",
    "diurnal_nodes",
    "diurnal_straggler_nodes",
    "physics",
)

# a straggler category (the time_varying example's: one a day per 2,048 nodes, half speed until
# found an hour later and the node swapped; rate, speed and latency ASSUMED)
STRAGGLER = Category(
    "Straggler",
    rate=1.0 / (24.0 * 2048),
    unit="node",
    kind="straggler",
    straggler_speed=0.5,
    detection_hours=1.0,
    recovery="swap",
)


def scenario(name: str, n_gpus: int, days: float):
    if name == "pool":
        s = bk.pool_scenario(n_gpus)
    elif name == "physics":
        s = bench_physics.scenario(n_gpus, on=True)
    elif name.startswith(("diurnal_straggler", "diurnal_nodes")):
        # the physics path (a straggler category), the node model (bench_nodes' features), or
        # both, with every category's rate on a daily cycle (a = 0.5, peak at 14:00)
        s = bk.diurnal_on(bk.paths_configs_at(n_gpus, maint=False))
        if "straggler" in name:
            fm = s.failures
            s = dataclasses.replace(
                s, failures=dataclasses.replace(fm, categories=(*fm.categories, STRAGGLER))
            )
        if name.endswith("nodes"):
            s = bench_nodes.nodes_on(s)
    else:
        s = bk.paths_configs_at(n_gpus, maint=name.endswith("_maint"))
        if name.startswith("diurnal"):
            s = bk.diurnal_on(s, 1.0 if name.startswith("diurnal_a1") else 0.5)
        if name.startswith("diurnal18"):  # category j peaks at hour j mod 24 (bench_kernel's)
            fm = s.failures
            cats = tuple(
                dataclasses.replace(c, diurnal_peak_hour=float(j % 24))
                for j, c in enumerate(fm.categories)
            )
            if name.endswith("_rev"):
                cats = cats[::-1]
            s = dataclasses.replace(s, failures=dataclasses.replace(fm, categories=cats))
    return dataclasses.replace(s, job=Job(days * 24.0))


def _shifted(j: int) -> tuple[float, ...]:
    """``feature_sizes.PROFILE`` (a cosine of amplitude 0.5 sampled hourly) ``j`` hours on."""
    return tuple(PROFILE[(h - j) % 24] for h in range(24))


def base_module(rev: str):
    """The revision's kernel module, written to a cache folder of its own and imported."""
    sha = subprocess.run(
        ["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    src = subprocess.run(
        ["git", "show", f"{sha}:relmc/sim/_kernels.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    folder = Path.home() / ".cache" / "relmc" / "bench_ab" / sha
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "kbase.py"
    if not path.exists() or path.read_text() != src:
        path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"kbase_{sha[:12]}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # numba's cache finds a function's module by its name
    spec.loader.exec_module(mod)
    return mod, sha


def _prepared(fn, inputs, n, mod=None):
    """``fn``'s arguments by name (an older path may take fewer), and its outputs.

    ``mod``: the module of ``fn``; where its diurnal table has rows of another width than the
    working tree's, the inputs' ``kepler_table`` is built by its own ``_kepler_table``.
    """
    out = allocate_outputs(n, inputs.n_categories)
    for v in out.values():  # outputs a path does not write compare equal (0), not as garbage
        v[...] = 0
    named = dict(zip(KERNEL_PARAMETERS[1:], kernel_args(inputs, out, slice(0, n)), strict=True))
    table = named["kepler_table"]
    if mod is not None and table.shape[0] > 0 and table.shape[1] != mod._KEP_COLS:
        named["kepler_table"] = np.empty((table.shape[0], mod._KEP_COLS))
        mod._kepler_table(named["kepler_e"], named["kepler_table"])
    named["use_blocks"] = True
    named["stats"] = np.zeros(5, dtype=np.int64)
    params = list(inspect.signature(getattr(fn, "py_func", fn)).parameters)[1:]  # less rng
    unknown = [p for p in params if p not in named]
    if unknown:
        raise SystemExit(f"bench_ab: {fn.__name__} takes arguments not known here: {unknown}")
    return [named[p] for p in params], out


def one(args) -> float:
    """One process: print the A/B line; return the ratio."""
    from relmc.sim import _kernels as new

    base, sha = base_module(args.rev)
    name = args.scenario
    profiles = name.endswith(("_profile", "_profiles"))
    shifted = name.endswith("_profiles")
    name = name.removesuffix("_profiles").removesuffix("_profile")
    trend = name.endswith("_trend")
    name = name.removesuffix("_trend")
    per_draw = name.endswith("_draws")
    per_shape = name.endswith("_shapes")
    name = name.removesuffix("_draws").removesuffix("_shapes")
    sc = scenario(name, args.n_gpus, args.days)
    if trend:  # bench_kernel.py's section [6]: wear-out, shape 1.5, a fleet 2,000 h old
        sc = replace_path(sc, "failures.trend_shape", 1.5)
        sc = replace_path(sc, "failures.fleet_age_hours", 2000.0)
    if profiles:  # feature_sizes.py's 24-hour rate profile; shifted by j hours for category j
        fm = sc.failures
        cosine = any(c.diurnal_amplitude > 0.0 for c in fm.categories)
        cats = tuple(
            dataclasses.replace(
                c, rate_profile=_shifted(j if shifted else 0), diurnal_amplitude=0.0
            )
            if j % 2 == 1 or not cosine  # (with a cosine, the other categories keep it)
            else c
            for j, c in enumerate(fm.categories)
        )
        sc = dataclasses.replace(sc, failures=dataclasses.replace(fm, categories=cats))
    inputs = kernel_inputs(sc, None, args.n_trials)[0]
    n = args.n_trials
    if per_draw:  # 8 draws of the rates (each category's times a lognormal, sd 0.2), in turn
        inputs = bk.rate_draws(inputs)
    if per_shape:  # 8 draws of the shapes (amplitudes x lognormal(0, 0.2), peaks + N(0, 1 h))
        inputs = bk.shape_draws(inputs)
    runs = {}
    for label, mod in (("old", base), ("new", new)):
        fn = getattr(mod, args.func, None)
        if fn is None:
            raise SystemExit(f"bench_ab: {label} code ({sha[:10]}) has no {args.func}")
        runs[label] = (fn, *_prepared(fn, inputs, n, mod))
        # compile (or load the cache) outside the timings: 4 trials
        fn(np.random.Generator(np.random.PCG64(args.seed)), *_prepared(fn, inputs, 4, mod)[0])
    best = {k: math.inf for k in runs}
    for rep in range(args.repeats):  # interleaved, the order alternating
        for k in ("old", "new") if rep % 2 == 0 else ("new", "old"):
            fn, fargs, _out = runs[k]
            rng = np.random.Generator(np.random.PCG64(args.seed))
            c0 = time.process_time()
            fn(rng, *fargs)
            best[k] = min(best[k], time.process_time() - c0)
    outs = {k: v[2] for k, v in runs.items()}
    ev = outs["new"]["events"].sum() / n
    keys = sorted(outs["new"])
    same = [k for k in keys if np.array_equal(outs["old"][k], outs["new"][k], equal_nan=True)]
    ratio = best["old"] / best["new"]
    differ = sorted(set(keys) - set(same))
    print(
        f"{args.func} {args.scenario} N={args.n_gpus} {args.days:g} d ({ev:,.1f} ev/trial), "
        f"old {sha[:10]}: {best['old'] / n * 1e9:,.0f} ns/trial ({best['old'] / n / ev * 1e9:.2f}"
        f" ns/ev), new: {best['new'] / n * 1e9:,.0f} ns/trial "
        f"({best['new'] / n / ev * 1e9:.2f} ns/ev): ratio {ratio:.3f}; outputs equal "
        f"{len(same)}/{len(keys)}{' ' + str(differ) if differ else ''}",
        flush=True,
    )
    return ratio


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rev", help="the git revision to compare against (e.g. HEAD~1, main)")
    ap.add_argument("func", help="the kernel function, e.g. _block_diurnal, simulate_block")
    shapes = [f"{s}_shapes" for s in SCENARIOS if s.startswith("diurnal")]
    names = [*SCENARIOS, *(f"{s}_draws" for s in SCENARIOS), *shapes]
    names = [*names, *(f"{s}_trend" for s in names)]
    names = [*names, *(f"{s}_profile" for s in names), *(f"{s}_profiles" for s in names)]
    ap.add_argument("scenario", choices=names)
    ap.add_argument("n_gpus", type=int)
    ap.add_argument("days", type=float, help="the job's length in days")
    ap.add_argument("--n-trials", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--n-procs", type=int, default=1, help="fresh processes; prints the median")
    args = ap.parse_args(argv)
    for name, label in (("n_gpus", "n_gpus"), ("n_trials", "--n-trials"),
                        ("repeats", "--repeats"), ("n_procs", "--n-procs")):  # fmt: skip
        if getattr(args, name) < 1:
            ap.error(f"{label} must be at least 1, got {getattr(args, name)}")
    if not args.days > 0.0:
        ap.error(f"days must be positive, got {args.days}")
    ok = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
    )
    if ok.returncode != 0:
        ap.error(f"rev: {args.rev!r} is not a commit of {ROOT}")
    if not args.func.startswith("_block_") and args.func != "simulate_block":
        ap.error(f"func must be simulate_block or a _block_* path of the kernel, got {args.func!r}")
    if args.n_procs == 1:
        one(args)
        return 0
    child = [args.rev, args.func, args.scenario, str(args.n_gpus), repr(args.days)]
    child += [
        "--n-trials",
        str(args.n_trials),
        "--repeats",
        str(args.repeats),
        "--seed",
        str(args.seed),
    ]
    ratios = []
    per_event = {"old": [], "new": []}
    for _ in range(args.n_procs):
        r = subprocess.run([sys.executable, __file__, *child], capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            return r.returncode
        line = r.stdout.strip().splitlines()[-1]
        print(line, flush=True)
        ratios.append(float(line.split("ratio ")[1].split(";")[0]))
        for side, ns in zip(("old", "new"), re.findall(r"\(([\d.]+) ns/ev\)", line), strict=True):
            per_event[side].append(float(ns))
    print(f"ratios {', '.join(f'{r:.3f}' for r in ratios)}: median {statistics.median(ratios):.3f}")
    # a process's speed varies by up to ~14 % (benchmarks/README.md): each side's median
    print(
        "ns/event, median (range) of the processes: "
        + "; ".join(f"{side} {bench_procs.spread(v, 2)}" for side, v in per_event.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
