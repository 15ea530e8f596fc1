"""Speed of relmc's Monte Carlo kernel (issue 3), as ratios measured in one run.

    python benchmarks/bench_kernel.py            # full run, a few minutes on 2 cores
    python benchmarks/bench_kernel.py --quick    # ~30 s smoke run, noisier

Scenario: Llama 3 405B point rates (``relmc.defaults.default_failures()``) scaled to
100,000 GPUs, a job of 54 days of compute (1,296 h), 30-min checkpoints with 1-min blocking
snapshots, 10-min restarts.

* "Daly": one exponential category with the same total rate; no detection latency, swap,
  spares, maintenance or persist (Daly's exact formula applies).
* "all features": all 18 Llama 3 categories with their default detection latencies (NCCL
  watchdog 10 min for hangs) and node swaps, planned maintenance at the Llama 3 rate (47 in
  54 days) with 30 min downtime, 5-min background persist, 15-min node swaps from a pool of 96
  spare nodes with 72 h exponential repairs.

Section [6] (issue 11): ns per event with time-varying physics on (diurnal failure rates,
power-law trend, diurnal throughput), as draw/event against the exponential draw measured in
the same run; the renewal path's row is the same configuration with every feature off. The
diurnal-only rows run the diurnal path (``_block_diurnal``, what ``simulate_block`` chooses);
the same configurations are also run on the general path (the path they took before), and
the one-peak row's time is split into the draw, a block's solve by the table
(``_kepler_pass`` over 128 summed gaps) and the rest; for the rows taken one by one, the
solve ``F(x) = g`` (a chain of solves with the phase carried, as the path runs them) and a
category (alias draws made ahead) are measured too; two rows take the 18 peak hours per
draw, as a posterior does: 8 rate draws (``rate_draws``) and 8 shape draws (``shape_draws``),
taken by the trials in turn; two of its rows (one peak hour; 18 peak hours with Llama 3's
planned maintenance) are also run at 2k, 16k, 100k and 1M GPUs, beside the general path.

Measured: events simulated per second per thread (``simulate(..., n_threads=1)``, the
``events`` output summed over trials, compile time excluded) and its ratio to the rate at which
an ``@njit`` loop draws exponential variates from a ``numpy.random.Generator`` in the same run;
2-thread speed-up; speed against the plain peers in ``benchmarks/peers.py`` (each checked
against Daly's exact mean wall time in the same run); ns per event at 2k, 16k, 100k and 1M GPUs;
peak memory per trial for 1M trials (in a subprocess). Timings are the best of several
interleaved repeats (on a shared VM noise only ever slows a run down). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _kernel_before  # noqa: E402  (the kernel at 0f446ea, for before/after ratios only)
import _kernel_round1  # noqa: E402  (the kernel at 42da17a: issue 10, round 1)
import peers  # noqa: E402

from relmc import analytic  # noqa: E402
from relmc._seed import child_seed  # noqa: E402
from relmc.defaults import default_failures  # noqa: E402
from relmc.scenario import (  # noqa: E402
    Category,
    Cluster,
    FailureModel,
    Job,
    Policy,
    Scenario,
    replace_path,
)
from relmc.sim import _kernels  # noqa: E402
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, block_args  # noqa: E402
from relmc.sim.simulate import BLOCK_SIZE, kernel_inputs, simulate  # noqa: E402

W_HOURS = 54 * 24.0
TAU, DELTA, RESTART = 0.5, 1.0 / 60.0, 10.0 / 60.0
N_GPUS = 100_000
SEED = 20240723


# ---------------------------------------------------------------- the random-number floor
@numba.njit(nogil=True)
def exp_draws(rng, n, scale):
    """Draw ``n`` exponential variates from a Generator inside @njit (summed, so kept)."""
    s = 0.0
    for _ in range(n):
        s += rng.exponential(scale)
    return s


@numba.njit(nogil=True)
def uniform_draws(rng, n):
    """Draw ``n`` uniform variates from a Generator inside @njit (summed, so kept)."""
    s = 0.0
    for _ in range(n):
        s += rng.random()
    return s


@numba.njit(nogil=True)
def exp_draws_stored(rng, buf, n):
    """Draw ``n`` standard exponentials into ``buf`` (len 128), refilled in place."""
    for _ in range(n // buf.shape[0]):
        for q in range(buf.shape[0]):
            buf[q] = rng.standard_exponential()
    return buf[0]


@numba.njit(nogil=True)
def solve_chain(rng, n, big_l, big_a, pause):
    """``n`` failures' solves as the diurnal path chains them (phase carried, ``pause`` h)."""
    t = 0.0
    s0 = 0.0
    c0 = 1.0
    inv_lo = 1.0 / (big_l - big_a) if big_l > big_a else math.inf
    rot_c = math.cos(_kernels.OMEGA * pause)
    rot_s = math.sin(_kernels.OMEGA * pause)
    for _ in range(n):
        g = rng.standard_exponential()
        x, s1, c1 = _kernels._invert_diurnal(
            g, s0, c0, big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), inv_lo, t, math.inf
        )
        t += x + pause
        s0 = s1 * rot_c + c1 * rot_s
        c0 = c1 * rot_c - s1 * rot_s
    return t


@numba.njit(nogil=True)
def kepler_blocks(rng, n, big_l, e, tab, gf, xa, okf, wk, ji):
    """``n`` failures' wall times as the diurnal path's blocks solve them, 128 at a time.

    Each block: 128 exponential gaps summed into integrated intensities, then their wall
    times by the table (``_kepler_pass``) from one phase.
    """
    w_l = _kernels.OMEGA / big_l
    phi0 = 0.7
    m0 = phi0 + e * math.sin(phi0)
    s = 0.0
    for _ in range(n // 128):
        g = 0.0
        for q in range(128):
            g += rng.standard_exponential()
            gf[q] = g
        _kernels._kepler_pass(gf, xa, okf, 0, 128, m0, phi0, e, w_l, 0.0, tab, wk, ji)
        s += xa[127]
    return s


@numba.njit(nogil=True)
def category_draws(rng, n, prob, slot_code, alias_code, n_slots, cbuf, ubuf):
    """``n`` categories drawn ahead as the diurnal path does (``_alias_codes``, ``CBUF`` a fill)."""
    s = 0
    for _ in range(n // cbuf.shape[0]):
        _kernels._alias_codes(rng, prob, slot_code, alias_code, n_slots, _kernels.CBUF, ubuf, cbuf)
        s += cbuf[0]
    return s


# ---------------------------------------------------------------- scenarios
def llama3_scenario(n_gpus: int, **policy) -> Scenario:
    """Llama 3 point rates and default categories at ``n_gpus``, 54-day job."""
    return Scenario(
        cluster=Cluster(n_gpus=n_gpus),
        failures=default_failures(),
        job=Job(W_HOURS),
        policy=Policy(
            checkpoint_interval=TAU, snapshot_hours=DELTA, restart_hours=RESTART, **policy
        ),
    )


def pool_scenario(n_gpus: int) -> Scenario:
    """Llama 3 at ``n_gpus`` with 96 spares, 72-h repairs and swaps, no planned maintenance."""
    s = llama3_scenario(n_gpus, swap_hours=0.25, n_spares=96, repair_hours=72.0)
    return dataclasses.replace(s, failures=dataclasses.replace(s.failures, maintenance_rate=0.0))


def diurnal_on(s: Scenario, amplitude: float = 0.5) -> Scenario:
    """``s`` with every category's rate on a daily cycle of ``amplitude``, peaking at 14:00."""
    s = replace_path(s, "failures.categories.*.diurnal_amplitude", amplitude)
    return replace_path(s, "failures.categories.*.diurnal_peak_hour", 14.0)


def daly_scenario(total_rate: float) -> Scenario:
    """One exponential category of cluster rate ``total_rate``; Daly's formula is exact."""
    fm = FailureModel((Category("all", rate=total_rate, unit="job"),))
    return Scenario(
        cluster=Cluster(n_gpus=N_GPUS),
        failures=fm,
        job=Job(W_HOURS),
        policy=Policy(checkpoint_interval=TAU, snapshot_hours=DELTA, restart_hours=RESTART),
    )


def all_features_scenario() -> Scenario:
    s = llama3_scenario(
        N_GPUS, persist_hours=5.0 / 60.0, swap_hours=0.25, n_spares=96, repair_hours=72.0
    )
    fm = dataclasses.replace(s.failures, maintenance_hours=0.5)
    return dataclasses.replace(s, failures=fm)


def paths_configs() -> dict[str, Scenario]:
    """The issue-10 configurations at 100k GPUs (no maintenance unless stated)."""
    base = llama3_scenario(N_GPUS)
    no_maint = dataclasses.replace(base.failures, maintenance_rate=0.0)
    rate = float(base.failures.cluster_rates(base.cluster).sum())
    return {
        "Daly (1 category, restart only)": daly_scenario(rate),
        "18 Llama 3 categories, unlimited spares": dataclasses.replace(base, failures=no_maint),
        "18 categories, 96 spares, 72 h repairs": pool_scenario(N_GPUS),
        "18 categories + planned maintenance (Llama 3 default)": base,
        "all features": all_features_scenario(),
    }


def run_blocks(block_fn, inputs) -> int:
    """Run a kernel (simulate_block's signature) over blocks of 256; return events simulated.

    An older kernel gets the arguments its signature names (it predates later inputs and
    outputs, such as the time-varying rates of issue 11).
    """
    n = inputs.n_trials
    out = allocate_outputs(n, inputs.n_categories)
    root = np.random.SeedSequence(SEED)
    wanted = list(inspect.signature(block_fn).parameters)[1:]
    args = block_args(inputs, out)  # as relmc.sim.simulate.run_kernel lays them out
    older = wanted != list(KERNEL_PARAMETERS[1:])
    for b in range(-(-n // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        block = args(slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE))
        if older:
            named = dict(zip(KERNEL_PARAMETERS[1:], block, strict=True))
            block = tuple(named[p] for p in wanted)
        block_fn(rng, *block)
    return int(out["events"].sum())


def physics_configs() -> dict[str, Scenario]:
    """Issue 11 at 100k GPUs, Llama 3 rates: the time-varying features (maintenance in one row)."""
    base = paths_configs_at(N_GPUS, maint=False)
    diurnal = diurnal_on(base)
    trend = replace_path(diurnal, "failures.trend_shape", 1.5)
    trend = replace_path(trend, "failures.fleet_age_hours", 2000.0)
    speed = replace_path(base, "job.throughput_amplitude", 0.01)
    planned = paths_configs_at(N_GPUS, maint=True).failures  # Llama 3's planned maintenance
    fm = diurnal.failures
    spread = dataclasses.replace(  # each category its own peak hour: the scan over categories
        fm,
        categories=tuple(
            dataclasses.replace(c, diurnal_peak_hour=float(j % 24))
            for j, c in enumerate(fm.categories)
        ),
    )
    return {
        "features off": base,
        "diurnal rates a=0.5, one peak hour": diurnal,
        "diurnal rates a=0.5, 18 peak hours": dataclasses.replace(diurnal, failures=spread),
        "diurnal rates a=1, one peak hour": diurnal_on(base, 1.0),
        # Llama 3's planned maintenance (47 in 54 days, 30-min downtime) with the 18 peak hours
        "diurnal a=0.5, 18 peak hours + maintenance": dataclasses.replace(
            diurnal,
            failures=dataclasses.replace(
                spread,
                maintenance_rate=planned.maintenance_rate,
                maintenance_hours=planned.maintenance_hours,
            ),
        ),
        "diurnal a=0.5 + trend 1.5": trend,
        "diurnal throughput b=0.01 only": speed,
        "diurnal a=0.5 + trend + throughput": replace_path(trend, "job.throughput_amplitude", 0.01),
    }


def _path_of(x) -> str:
    """The path ``simulate_block`` takes for these inputs (plain configurations only)."""
    amp_on = bool(np.any(x.cat_amp > 0.0) or np.any(x.draw_amp > 0.0))
    other = x.trend_shape != 1.0 or bool(np.any(x.draw_trend != 1.0)) or x.speed_amp != 0.0
    other = other or x.cat_profile.shape[0] > 0
    if _kernels.diurnal_applies(x.maint_rate, x.n_spares, x.swap, amp_on, other, False):
        return "diurnal"
    if _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap, amp_on or other, False):
        return "renewal"
    return "general"


def physics_paths(quick: bool, row) -> None:
    """Issue 11: ns/event with time-varying physics on, as draw/event in the same run."""
    reps = 3 if quick else 5
    n_trials = 256 if quick else 1024
    cfgs = {k: kernel_inputs(v, None, n_trials)[0] for k, v in physics_configs().items()}
    # per draw (posterior draws): the 18 peak hours with 8 rate draws, and with 8 shape draws
    spread = cfgs["diurnal rates a=0.5, 18 peak hours"]
    cfgs["diurnal a=0.5, 18 peak hours, 8 rate draws"] = rate_draws(spread)
    cfgs["diurnal a=0.5, 18 peak hours, 8 shape draws"] = shape_draws(spread)
    paths = {k: _path_of(x) for k, x in cfgs.items()}
    # the renewal and diurnal paths' configurations also on the general path
    runs = [(k, _kernels.simulate_block) for k in cfgs]
    runs += [(k, _kernels._block_general) for k in cfgs if paths[k] in ("renewal", "diurnal")]
    for k, fn in runs:  # compile / load the cache outside the timings
        x = cfgs[k]
        run_blocks(fn, dataclasses.replace(x, draw_of_trial=x.draw_of_trial[:4]))
    # the diurnal path's parts: its solve and its categories, at the one-peak configuration
    one = cfgs["diurnal rates a=0.5, one peak hour"]
    rates = one.cat_rate[0]
    big_l = float(rates.sum())
    big_a = float(abs(np.sum(rates * one.cat_amp * np.exp(-1j * _kernels.OMEGA * one.cat_phase))))
    pause = float(
        np.sum(rates * (one.detect_hours + np.where(one.swap, one.swap_hours, 0.0))) / big_l
    )
    n_cat = rates.size
    prob = np.empty(n_cat)
    slot_code = np.empty(n_cat, dtype=np.int64)
    alias_code = np.empty(n_cat, dtype=np.int64)
    n_slots = _kernels._build_alias(
        rates, n_cat, prob, slot_code, alias_code, np.empty(n_cat, np.int64),
        np.empty(n_cat, np.int64),
    )  # fmt: skip
    cbuf = np.empty(_kernels.CBUF, dtype=np.int64)
    ubuf = np.empty(_kernels.CBUF)
    cat_args = (prob, slot_code, alias_code, n_slots, cbuf, ubuf)
    tab = np.empty((_kernels._KEP_N + 1, _kernels._KEP_COLS))
    _kernels._kepler_table(big_a / big_l, tab)
    kep_args = (
        big_l, big_a / big_l, tab, np.empty(128), np.empty(128), np.empty(128),
        np.empty((2 + _kernels._KEP_COLS, 128)), np.empty(128, dtype=np.int64),
    )  # fmt: skip
    kepler_blocks(np.random.default_rng(0), 256, *kep_args)
    solve_chain(np.random.default_rng(0), 10, big_l, big_a, pause)
    category_draws(np.random.default_rng(0), 64, *cat_args)
    exp_draws(np.random.default_rng(0), 10, 1.0)
    n_draw = 5_000_000 if quick else 20_000_000
    n_part = 1_000_000 if quick else 4_000_000
    best: dict = {}
    for _ in range(reps):  # interleaved; best of the repeats (noise only slows a run)
        _, dt = timed(exp_draws, np.random.default_rng(SEED), n_draw, 1.0)
        best["summed"] = min(best.get("summed", math.inf), dt / n_draw * 1e9)
        for name, fn in runs:
            ev, dt = timed(run_blocks, fn, cfgs[name])
            best[name, fn] = min(best.get((name, fn), math.inf), dt / ev * 1e9)
        _, dt = timed(solve_chain, np.random.default_rng(SEED), n_part, big_l, big_a, pause)
        best["solve"] = min(best.get("solve", math.inf), dt / n_part * 1e9)
        _, dt = timed(category_draws, np.random.default_rng(SEED), n_part, *cat_args)
        best["category"] = min(best.get("category", math.inf), dt / n_part * 1e9)
        _, dt = timed(kepler_blocks, np.random.default_rng(SEED), n_part, *kep_args)
        best["table"] = min(best.get("table", math.inf), dt / n_part * 1e9)
    print(
        f"\n[6] time-varying physics (issue 11): ns/event at 100k GPUs, 18 Llama 3 categories, "
        f"no maintenance unless the row says so, 1 thread, {n_trials} trials, best of {reps}"
    )
    row("exponential draw, summed (the denominator)", f"{best['summed']:.2f} ns/draw")
    for name, fn in runs:
        path = paths[name] if fn is _kernels.simulate_block else "general, forced"
        target = "" if name.startswith("features off") or path.startswith("general") else ">= 0.2"
        t = best[name, fn]
        row(f"{name} [{path}]", f"{t:.1f} ns/event", target, f"draw/event {best['summed'] / t:.3f}")
    t_one = best["diurnal rates a=0.5, one peak hour", _kernels.simulate_block]
    solve = best["solve"] - best["summed"]  # the chain draws its own exponentials
    table = best["table"] - best["summed"]  # and so do the blocks
    rest = t_one - best["summed"] - table
    row("  diurnal path, one peak: a block's solve by the table", f"{table:.1f} ns/failure")
    row("  diurnal path, one peak: the rest", f"{rest:.1f} ns/failure", "", "blocks, runs, sums")
    row("  (one by one: the solve F(x) = g, chained)", f"{solve:.1f} ns/failure", "", "")
    row("  (one by one: a category drawn ahead)", f"{best['category']:.1f} ns/failure", "", "")
    # two diurnal rows against cluster size (the diurnal path), beside the general path
    per_n = physics_configs_at_sizes()
    for (label, n_gpus), sc in per_n.items():
        pilot = run_blocks(_kernels.simulate_block, kernel_inputs(sc, None, 16)[0]) / 16
        n = int(min(max(16, (1e6 if quick else 4e6) / max(pilot, 1.0)), 20_000))
        x = kernel_inputs(sc, None, n)[0]
        t = math.inf
        t_gen = math.inf
        for _ in range(2):
            ev, dt = timed(run_blocks, _kernels.simulate_block, x)
            t = min(t, dt / ev * 1e9)
            ev, dt = timed(run_blocks, _kernels._block_general, x)
            t_gen = min(t_gen, dt / ev * 1e9)
        row(
            f"N = {n_gpus:>9,}: {label} [{_path_of(x)}]",
            f"{t:.1f} ns/event",
            "flat",
            f"draw/event {best['summed'] / t:.3f}; general path {t_gen:.1f} ns; "
            f"{ev / n:,.0f} ev/tr, {n} trials",
        )


def physics_configs_at_sizes() -> dict[tuple[str, int], Scenario]:
    """Two diurnal Llama 3 rows of section [6] at 2k to 1M GPUs."""
    out = {}
    for n_gpus in (2048, 16_384, 100_000, 1_000_000):
        base = paths_configs_at(n_gpus, maint=False)
        diurnal = diurnal_on(base)
        out["diurnal a=0.5, one peak hour", n_gpus] = diurnal
        planned = paths_configs_at(n_gpus, maint=True).failures
        fm = dataclasses.replace(
            diurnal.failures,
            categories=tuple(
                dataclasses.replace(c, diurnal_peak_hour=float(j % 24))
                for j, c in enumerate(diurnal.failures.categories)
            ),
            maintenance_rate=planned.maintenance_rate,
            maintenance_hours=planned.maintenance_hours,
        )
        out["diurnal a=0.5, 18 peak hours + maintenance", n_gpus] = dataclasses.replace(
            diurnal, failures=fm
        )
    return out


def kernel_paths(quick: bool, row) -> None:
    """Issue 10: ns/event of each path vs the draw rate and vs the kernel before, one run."""
    reps = 3 if quick else 5
    n_trials = 256 if quick else 1024
    kernels = {
        "now": _kernels.simulate_block,
        "general": _kernels._block_general,
        "round 1": _kernel_round1.simulate_block,
        "before": _kernel_before.simulate_block,
    }
    cfgs = {k: kernel_inputs(v, None, n_trials)[0] for k, v in paths_configs().items()}
    for x in cfgs.values():  # compile / load the cache outside the timings
        for fn in kernels.values():
            run_blocks(fn, dataclasses.replace(x, draw_of_trial=x.draw_of_trial[:4]))
    buf = np.empty(128)
    exp_draws(np.random.default_rng(0), 10, 1.0)
    exp_draws_stored(np.random.default_rng(0), buf, 128)
    n_draw = 5_000_000 if quick else 20_000_000
    best: dict = {}
    for _ in range(reps):  # interleaved; best of the repeats (noise only slows a run)
        _, dt = timed(exp_draws, np.random.default_rng(SEED), n_draw, 1.0)
        best["summed"] = min(best.get("summed", math.inf), dt / n_draw * 1e9)
        _, dt = timed(exp_draws_stored, np.random.default_rng(SEED), buf, n_draw)
        best["stored"] = min(best.get("stored", math.inf), dt / n_draw * 1e9)
        for name, x in cfgs.items():
            for lab, fn in kernels.items():
                ev, dt = timed(run_blocks, fn, x)
                best[name, lab] = min(best.get((name, lab), math.inf), dt / ev * 1e9)
    print(f"\n[0] kernel paths (issue 10): ns/event, 1 thread, {n_trials} trials, best of {reps}")
    row("exponential draw, summed (the denominator)", f"{best['summed']:.2f} ns/draw")
    row("exponential draw, stored in a 128 buffer", f"{best['stored']:.2f} ns/draw")
    targets = dict(zip(cfgs, (">= 0.9", ">= 0.8", ">= 2x before", "", ""), strict=True))
    for name in cfgs:
        now, before, round1 = best[name, "now"], best[name, "before"], best[name, "round 1"]
        general = best[name, "general"]
        row(
            name,
            f"{now:.1f} ns/event",
            targets[name],
            f"draw/event {best['summed'] / now:.3f} summed, {best['stored'] / now:.3f} stored; "
            f"general path {general:.1f} ns: {general / now:.2f}x; "
            f"round 1 {round1:.1f} ns ({best['summed'] / round1:.3f}): {round1 / now:.2f}x; "
            f"before {before:.1f} ns: {before / now:.2f}x",
        )
    for n_gpus in (2048, 16_384, 100_000, 1_000_000):
        for label, sc in (
            ("Llama 3, no maintenance", paths_configs_at(n_gpus, maint=False)),
            ("Llama 3 default (maintenance)", paths_configs_at(n_gpus, maint=True)),
        ):
            dt, ev, n = _timed_sized(sc, quick)
            row(
                f"N = {n_gpus:>9,}: {label}",
                f"{dt / ev * 1e9:.1f} ns/event",
                "flat",
                f"{ev / n:,.0f} ev/tr",
            )
    # where a small cluster's cost goes: cost per trial = a + b x events, from two job lengths
    # (not at 1M GPUs: there every trial reaches the wall cap, and near it the trial ends on
    # the general path, so the two lengths do not share one cost per event)
    for n_gpus in (2048, 16_384, 100_000):
        base = paths_configs_at(n_gpus, maint=False)
        lengths = (W_HOURS, 10 * W_HOURS)
        per = []
        for hours in lengths:
            dt, ev, n = _timed_sized(dataclasses.replace(base, job=Job(hours)), quick)
            per.append((dt / n, ev / n))
        (t1, e1), (t2, e2) = per
        b = (t2 - t1) / (e2 - e1)
        a = t1 - b * e1
        row(
            f"N = {n_gpus:>9,}: per event b, per trial a",
            f"{b * 1e9:.1f} ns/event",
            "flat",
            f"a = {a * 1e6:.2f} us/trial; jobs of {lengths[0] / 24:g} and {lengths[1] / 24:g} "
            f"days: {e1:,.0f} and {e2:,.0f} ev/tr",
        )


def sized_trials(sc: Scenario, events: float) -> tuple[int, float]:
    """Trials of ``sc`` for about ``events`` events (256 to 100,000), from a 16-trial pilot
    (which compiles the path): ``(n, the pilot's events a trial)``."""
    pilot = run_blocks(_kernels.simulate_block, kernel_inputs(sc, None, 16)[0]) / 16
    return int(min(max(256, events / max(pilot, 1.0)), 100_000)), pilot


def _timed_sized(sc: Scenario, quick: bool) -> tuple[float, int, int]:
    """Best of 2 runs of ``sc``, trials sized to ~2 M (quick) or 8 M events: (s, events, n)."""
    n, _ = sized_trials(sc, 2e6 if quick else 8e6)
    x = kernel_inputs(sc, None, n)[0]
    best = math.inf
    for _ in range(2):
        ev, dt = timed(run_blocks, _kernels.simulate_block, x)
        best = min(best, dt)
    return best, ev, n


def rate_draws(x, n_draws: int = 8):
    """Inputs ``x`` with rates per draw: each category's rate times a lognormal of sd 0.2,
    ``n_draws`` draws taken by the trials in turn."""
    mult = np.random.default_rng(8).lognormal(0.0, 0.2, (n_draws, x.n_categories))
    return dataclasses.replace(
        x, cat_rate=x.cat_rate[0] * mult, draw_of_trial=np.arange(x.n_trials) % n_draws
    )


def shape_draws(x, n_draws: int = 8):
    """Inputs ``x`` with diurnal shapes per draw (as a posterior of
    ``fit_events(diurnal="category")`` gives): each category's amplitude times a lognormal of
    sd 0.2 (at most 1), its peak hour moved by a normal of sd 1 h; point rates; ``n_draws``
    draws taken by the trials in turn."""
    r = np.random.default_rng(9)
    k = x.n_categories
    return dataclasses.replace(
        x,
        cat_rate=np.repeat(x.cat_rate[:1], n_draws, axis=0),
        draw_of_trial=np.arange(x.n_trials) % n_draws,
        draw_amp=np.minimum(x.cat_amp * r.lognormal(0.0, 0.2, (n_draws, k)), 1.0),
        draw_phase=(x.cat_phase + r.normal(0.0, 1.0, (n_draws, k))) % 24.0,
    )


def paths_configs_at(n_gpus: int, maint: bool) -> Scenario:
    s = llama3_scenario(n_gpus)
    if maint:
        return s
    return dataclasses.replace(s, failures=dataclasses.replace(s.failures, maintenance_rate=0.0))


# ---------------------------------------------------------------- timing helpers
def timed(fn, *args, **kwargs):
    """Return ``(result, seconds)``; seconds of process CPU time (see ``CLOCK``)."""
    out, wall, cpu = timed2(fn, *args, **kwargs)
    return out, (cpu if CLOCK == "cpu" else wall)


def timed2(fn, *args, **kwargs):
    """Return ``(result, wall seconds, process CPU seconds)``."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0, time.process_time() - c0


# Single-thread rates are measured in process CPU time by default: on a shared VM other
# processes steal the cores, and CPU time does not count the time a run sat preempted.
CLOCK = "cpu"


def draw_rate(n: int, scale: float, kind: str = "exp") -> float:
    rng = np.random.default_rng(SEED)
    if kind == "exp":
        _, dt = timed(exp_draws, rng, n, scale)
    else:
        _, dt = timed(uniform_draws, rng, n)
    return n / dt


def mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, float)
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


# ---------------------------------------------------------------- memory (subprocess)
MEM_CHILD = r"""
import json, resource, sys, tracemalloc
import numpy as np
from relmc.defaults import default_failures
from relmc.scenario import Cluster, Job, Scenario
from relmc.sim.simulate import simulate
n = int(sys.argv[1])
# a one-day job at 2,048 GPUs: ~1 event per trial, so the run measures per-trial state
s = Scenario(cluster=Cluster(n_gpus=2048), failures=default_failures(), job=Job(24.0))
simulate(s, n_trials=300, seed=0, n_threads=1)  # warm up (compile / load cache)
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
tracemalloc.start()
ds = simulate(s, n_trials=n, seed=1, n_threads=1)
cur, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"n": n, "peak": peak, "held": cur, "nbytes": int(ds.nbytes),
                  "rss_delta": rss1 - rss0, "events": int(ds.events.sum())}))
"""


def memory(n_trials: int) -> dict:
    res = subprocess.run(
        [sys.executable, "-c", MEM_CHILD, str(n_trials)], capture_output=True, text=True, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- main
def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="~30 s smoke run (fewer trials)")
    ap.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    ap.add_argument(
        "--paths-only",
        action="store_true",
        help="only sections [0] and [6], the kernel paths (issues 10 and 11)",
    )
    ap.add_argument(
        "--wall",
        action="store_true",
        help="time single-thread runs by wall clock instead of process CPU time",
    )
    args = ap.parse_args(argv)
    q = args.quick
    global CLOCK
    CLOCK = "wall" if args.wall else "cpu"
    t_start = time.perf_counter()
    rows: list[tuple[str, str, str, str]] = []  # (measure, value, target, note)

    def row(measure, value, target="", note=""):
        rows.append((measure, value, target, note))
        print(f"  {measure:<46} {value:>16}  {target:<8} {note}", flush=True)

    n_cpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpu_model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    facts = {
        "command": "python benchmarks/bench_kernel.py"
        + (" --quick" if q else "")
        + (" --wall" if args.wall else ""),
        "clock": CLOCK,
        "cpus": n_cpu,
        "cpu_model": cpu_model,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "loadavg_at_start": os.getloadavg()[0],
    }
    print("relmc kernel benchmark (issue 3)")
    print(f"  {facts['command']}   (single-thread rates per {CLOCK} second)")
    print(
        f"  {n_cpu} CPUs ({cpu_model}); Python {facts['python']}, numpy {facts['numpy']}, "
        f"numba {facts['numba']}; 1-min load average at start {facts['loadavg_at_start']:.2f}"
    )

    kernel_paths(q, row)
    physics_paths(q, row)
    if args.paths_only:
        print(f"\n1-min load average at end {os.getloadavg()[0]:.2f}")
        return _written({"facts": facts, "rows": rows}, args.json)

    allf = all_features_scenario()
    rate100k = float(allf.failures.cluster_rates(allf.cluster).sum())
    daly = daly_scenario(rate100k)
    mtbf = 1.0 / rate100k
    exact = analytic.daly_expected_wall(W_HOURS, TAU, DELTA, RESTART, mtbf)
    # SOURCES.md §7's 3,233.8 h scales all 419 Llama 3 interruptions linearly with GPUs
    rate_lin = 419.0 / W_HOURS * N_GPUS / 16_384
    exact_lin = analytic.daly_expected_wall(W_HOURS, TAU, DELTA, RESTART, 1.0 / rate_lin)

    # warm up: compile (or load the numba cache) outside every timing
    simulate(daly, n_trials=8, seed=0, n_threads=1)
    simulate(allf, n_trials=8, seed=0, n_threads=1)
    simulate(allf, n_trials=600, seed=0, n_threads=2)
    exp_draws(np.random.default_rng(0), 10, 1.0)
    uniform_draws(np.random.default_rng(0), 10)

    # ---- 1. draw floor vs relmc, interleaved
    reps = 3 if q else 5
    n_draw = 5_000_000 if q else 20_000_000
    n_daly = 512 if q else 2048  # ~6,300 events per trial
    n_all = 256 if q else 1024  # ~7,600 events per trial
    best = {"exp": 0.0, "uni": 0.0, "daly": 0.0, "all": 0.0}
    ds_daly = ds_all = None
    for _ in range(reps):
        best["exp"] = max(best["exp"], draw_rate(n_draw, mtbf, "exp"))
        best["uni"] = max(best["uni"], draw_rate(n_draw, mtbf, "uni"))
        ds, dt = timed(simulate, daly, n_trials=n_daly, seed=SEED, n_threads=1)
        best["daly"] = max(best["daly"], int(ds.events.sum()) / dt)
        ds_daly = ds
        ds, dt = timed(simulate, allf, n_trials=n_all, seed=SEED, n_threads=1)
        best["all"] = max(best["all"], int(ds.events.sum()) / dt)
        ds_all = ds

    print(
        "\n[1] events per second per thread vs the Generator draw rate (best of "
        f"{reps} interleaved repeats)"
    )
    row("numba @njit Generator.exponential, 1 thread", f"{best['exp'] / 1e6:.1f} M/s")
    row("numba @njit Generator.random, 1 thread", f"{best['uni'] / 1e6:.1f} M/s")
    ev_daly = float(ds_daly.events.mean())
    ev_all = float(ds_all.events.mean())
    row(
        f"relmc Daly config ({n_daly} trials x {ev_daly:,.0f} ev)",
        f"{best['daly'] / 1e6:.2f} M ev/s",
        "",
        f"{1e9 / best['daly']:.0f} ns/event",
    )
    row("  ratio to exponential draw rate", f"{best['daly'] / best['exp']:.3f}", ">= 0.5")
    row(
        f"relmc all features ({n_all} trials x {ev_all:,.0f} ev)",
        f"{best['all'] / 1e6:.2f} M ev/s",
        "",
        f"{1e9 / best['all']:.0f} ns/event",
    )
    row("  ratio to exponential draw rate", f"{best['all'] / best['exp']:.3f}", ">= 0.25")
    m, se = mean_se(ds_all.wall_hours)
    row(
        "  all features: mean wall / ETTR",
        f"{m:,.1f} h",
        "",
        f"+-{se:.1f} SE, ETTR "
        f"{float(ds_all.ettr.mean()):.3f}, finished {float(ds_all.finished.mean()):.2f}",
    )

    # ---- 2. 2-thread speed-up
    n_thr = 1024 if q else 4096  # 4 / 16 blocks of 256
    t1 = t2 = c1 = c2 = math.inf
    for _ in range(2 if q else 3):
        ds1, dt, c = timed2(simulate, daly, n_trials=n_thr, seed=SEED + 1, n_threads=1)
        if dt < t1:
            t1, c1 = dt, c
        ds2, dt, c = timed2(simulate, daly, n_trials=n_thr, seed=SEED + 1, n_threads=2)
        if dt < t2:
            t2, c2 = dt, c
    same = all(np.array_equal(ds1[v].values, ds2[v].values) for v in ds1.data_vars)
    print(f"\n[2] 2-thread speed-up (Daly config, {n_thr} trials, {n_thr // 256} blocks)")
    row(
        "simulate n_threads=1 (wall)",
        f"{t1:.2f} s",
        "",
        f"{c1:.2f} CPU-s: {c1 / t1:.2f} cores busy",
    )
    row(
        "simulate n_threads=2 (wall)",
        f"{t2:.2f} s",
        "",
        f"{c2:.2f} CPU-s used: {c2 / t2:.2f} cores busy; load avg {os.getloadavg()[0]:.2f}",
    )
    row(
        "speed-up 2 vs 1 thread",
        f"{t1 / t2:.2f}x",
        ">= 1.8x",
        "bit-identical" if same else "RESULTS DIFFER",
    )

    # ---- 3. peers of the Daly job, same answer checked
    kw = dict(work=W_HOURS, tau=TAU, delta=DELTA, restart=RESTART, rate=rate100k)
    peer_trials = {
        "NumPy vectorised over trials": (peers.numpy_vectorised, 300 if q else 2000),
        "pure-Python event loop": (peers.python_loop, 10 if q else 100),
        "SimPy processes + interrupts": (peers.simpy_job, 2 if q else 10),
    }
    print(
        f"\n[3] peers of the Daly job (exact mean wall {exact:,.1f} h, "
        f"ETTR {W_HOURS / exact:.3f}; MTBF {mtbf * 60:.2f} min)"
    )
    m, se = mean_se(ds_daly.wall_hours)
    row(
        f"relmc ({n_daly} trials): mean wall",
        f"{m:,.1f} h",
        "",
        f"+-{se:.1f} SE, z = {(m - exact) / se:+.2f}",
    )
    peer_rates = {}
    for name, (fn, n) in peer_trials.items():
        (w, e), dt = timed(fn, n, seed=SEED, **kw)
        rate = int(e.sum()) / dt
        peer_rates[name] = rate
        m, se = mean_se(w)
        row(
            f"{name} ({n} trials): mean wall",
            f"{m:,.1f} h",
            "",
            f"+-{se:.1f} SE, z = {(m - exact) / se:+.2f}",
        )
        target = {
            "NumPy vectorised over trials": ">= 20x",
            "SimPy processes + interrupts": ">= 1000x",
        }.get(name, "")
        row(
            "  events/s; relmc is faster by",
            f"{best['daly'] / rate:,.1f}x",
            target,
            f"{rate / 1e6:.3f} M ev/s",
        )
    daly_lin = daly_scenario(rate_lin)
    ds_lin = simulate(daly_lin, n_trials=n_daly, seed=SEED, n_threads=2)
    m, se = mean_se(ds_lin.wall_hours)
    row(
        "relmc at SOURCES.md §7's linear rate: mean wall",
        f"{m:,.1f} h",
        "",
        f"+-{se:.1f} SE vs {exact_lin:,.1f} h: z = {(m - exact_lin) / se:+.2f}",
    )

    # ---- 4. cost per event vs N (Llama 3 rates, default policy)
    target_events = 3_000_000 if q else 15_000_000
    print(
        f"\n[4] cost per event vs cluster size (Llama 3 rates and categories, default policy; "
        f"~{target_events / 1e6:.0f} M events each, 1 thread)"
    )
    per_n = {}
    for n_gpus in (2048, 16_384, 100_000, 1_000_000):
        s = llama3_scenario(n_gpus)
        pilot = simulate(s, n_trials=16, seed=1, n_threads=1)
        per_trial = max(float(pilot.events.mean()), 1.0)
        n = int(min(max(256, target_events / per_trial), 200_000))
        dt = math.inf
        for _ in range(2):
            ds, t = timed(simulate, s, n_trials=n, seed=SEED, n_threads=1)
            dt = min(dt, t)
        ev = int(ds.events.sum())
        per_n[n_gpus] = dt / ev * 1e9
        row(
            f"N = {n_gpus:>9,} ({n:,} trials x {ev / n:,.0f} ev)",
            f"{per_n[n_gpus]:.0f} ns/event",
            "flat",
            f"ETTR {float(ds.ettr.mean()):.3f}, finished {float(ds.finished.mean()):.2f}",
        )
    spread = max(per_n.values()) / min(per_n.values())
    row("max / min ns per event", f"{spread:.2f}", "~1")

    # ---- 5. memory for 1M trials
    print("\n[5] peak memory of simulate() (subprocess; 1-day job at 2,048 GPUs)")
    mem = {}
    for n in (100_000, 1_000_000):
        mem[n] = memory(n)
        r = mem[n]
        row(
            f"{n:>9,} trials: tracemalloc peak",
            f"{r['peak'] / n:.0f} B/trial",
            "O(trials)",
            f"{r['peak'] / 2**20:.0f} MiB; result {r['nbytes'] / n:.0f} B/trial; "
            f"maxrss +{r['rss_delta'] / 2**20:.0f} MiB",
        )

    total = time.perf_counter() - t_start
    print(f"\ntotal {total:.0f} s; 1-min load average at end {os.getloadavg()[0]:.2f}")
    return _written({"facts": facts, "rows": rows, "seconds": total}, args.json)


def _written(result: dict, path: Path | None) -> dict:
    """``result``, also written to ``path`` as JSON when given (``--json``, any sections)."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
