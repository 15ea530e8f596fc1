"""Speed of the kernel's node model (issue 12), as ratios measured in one run.

    python benchmarks/bench_nodes.py            # a few minutes on 2 cores
    python benchmarks/bench_nodes.py --quick    # smoke run, noisier

[1] ns per event with every node feature on, at 2k, 16k, 100k and 1M GPUs, against the
exponential draw (``draw/event``: ns per draw / ns per event, the same denominator as
``bench_kernel.py`` [6]) and against the same scenario with the node model off. Scenario:
the 18 Llama 3 categories at their point rates, planned maintenance, a 54-day job, 30-min
checkpoints; node features: 15 % bad nodes failing 5x as often, the network category taking
a rack, 3 min of diagnosis with 5 % wrong blame for node swaps, lemon detection (2 failures
in a week), two-stage repair (72 h automated, 30 % escalated to 168 h manual, 20 % / 10 %
misses), retirement after 5 repairs, 16 standbys, 20-min preemption, a pool of 1 % of the
job's nodes (at least 16), restart from memory (2 replicas, 2 min).

[2] An AIReSim-like scenario (its ``Params`` defaults, ``/work/shared/reference/peers.md``):
4,096 nodes, a good node failing once per 100 days, 15 % bad nodes at 5x, 16 warm standbys,
200 spares reached by a 20-min preemption, 3-min host selection, 20-min recovery, two-stage
repair (2 h automated, 80 % escalated to 48 h manual, 40 % / 20 % misses), exponential
everything, a 256-day job (with relmc's checkpoints: 30 min, 1-min snapshot). Events per
second, and the ratio to AIReSim's measured ~960 failures/s at 2,048 servers.

[3] Stragglers and SDC with every node feature on (the combined path,
``_block_physics_nodes``), at 2k, 16k, 100k and 1M GPUs: [1]'s scenario with Llama 3's
silent data corruption latent for 4 h (12 checkpoints kept) and one straggler a day per
2,048 nodes at half speed for an hour (both assumed, as in ``examples/time_varying.py``),
against [1]'s node path on the same scenario without them, and against the physics path
(the same stragglers and SDC with the node model off: [1]'s "off" scenario plus them).

Timings are process CPU time, best of interleaved repeats, compile excluded. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_kernel as bk  # noqa: E402

from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario  # noqa: E402
from relmc.sim import _kernels  # noqa: E402
from relmc.sim.simulate import kernel_inputs  # noqa: E402

AIRESIM_FAILURES_PER_S = 960.0  # AIReSim at 2,048 servers (peers.md)


def nodes_on(sc: Scenario) -> Scenario:
    """``sc`` with every node feature on (see the module docstring, [1])."""
    fm = sc.failures
    cats = tuple(
        dataclasses.replace(
            c,
            domain="rack" if c.name == "Network Switch/Cable" else "node",
            diagnosis_hours=0.05 if c.recovery == "swap" else 0.0,
            wrong_blame=0.05 if c.recovery == "swap" else 0.0,
            bad_node_multiplier=None if c.recovery == "swap" else 1.0,
        )
        for c in fm.categories
    )
    fm = dataclasses.replace(fm, categories=cats, bad_node_fraction=0.15, bad_node_multiplier=5.0)
    n_nodes = -(-sc.cluster.n_gpus // sc.cluster.gpus_per_node)
    pol = dataclasses.replace(
        sc.policy,
        swap_hours=0.25,
        n_spares=max(16, n_nodes // 100),
        repair_hours=72.0,
        lemon_failures=2,
        lemon_window_hours=168.0,
        escalation_probability=0.3,
        manual_repair_hours=168.0,
        auto_repair_miss=0.2,
        manual_repair_miss=0.1,
        retire_after_repairs=5,
        n_standbys=16,
        preemption_hours=1 / 3,
        memory_restart_hours=2 / 60,
        memory_replicas=2,
    )
    return dataclasses.replace(sc, failures=fm, policy=pol)


def nodes_off(sc: Scenario) -> Scenario:
    """The node-model scenario with the node model off (same pool, swaps and repairs)."""
    on = nodes_on(sc)
    return dataclasses.replace(
        sc,
        policy=dataclasses.replace(
            sc.policy, swap_hours=0.25, n_spares=on.policy.n_spares, repair_hours=72.0
        ),  # fmt: skip
    )


def physics_nodes_on(sc: Scenario, nodes: bool = True) -> Scenario:
    """:func:`nodes_on` plus a latent SDC and a straggler category ([3]).

    ``nodes=False``: the same on :func:`nodes_off` (the physics path, node model off).
    """
    on = nodes_on(sc) if nodes else nodes_off(sc)
    straggler = Category(
        "Straggler",
        rate=1.0 / (24.0 * 2048),  # per node-hour: one a day on 2,048 nodes (assumed)
        unit="node",
        kind="straggler",
        straggler_speed=0.5,
        detection_hours=1.0,
        recovery="swap",
    )
    cats = tuple(
        # an SDC is never wrongly blamed (relmc.sim): its wrong_blame is not read
        dataclasses.replace(c, kind="sdc", sdc_latency_hours=4.0, wrong_blame=0.0)
        if c.name == "Silent Data Corruption"
        else c
        for c in on.failures.categories
    )
    assert any(c.kind == "sdc" for c in cats)
    fm = dataclasses.replace(on.failures, categories=(*cats, straggler))
    pol = dataclasses.replace(on.policy, checkpoint_retention=12)
    return dataclasses.replace(on, failures=fm, policy=pol)


def airesim_like() -> Scenario:
    """AIReSim's defaults in relmc's terms (see the module docstring, [2])."""
    f, m = 0.15, 5.0
    good = 0.01 / 24.0  # per node-hour: once per 100 days
    cat = Category("server", rate=good * (1 - f + f * m), unit="node", recovery="swap")
    return Scenario(
        cluster=Cluster(n_gpus=4096 * 8),
        failures=FailureModel((cat,), bad_node_fraction=f, bad_node_multiplier=m),
        job=Job(256 * 24.0),
        policy=Policy(
            checkpoint_interval=0.5,
            snapshot_hours=1 / 60,
            restart_hours=20 / 60,
            swap_hours=3 / 60,
            n_spares=200,
            n_standbys=16,
            preemption_hours=20 / 60,
            repair_hours=2.0,
            escalation_probability=0.8,
            manual_repair_hours=48.0,
            auto_repair_miss=0.4,
            manual_repair_miss=0.2,
        ),
    )


def per_event(x, reps: int) -> float:
    """Best ns per event of ``simulate_block`` over ``reps`` runs."""
    best = math.inf
    for _ in range(reps):
        ev, dt = bk.timed(bk.run_blocks, _kernels.simulate_block, x)
        best = min(best, dt / ev * 1e9)
    return best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run (fewer events)")
    args = ap.parse_args(argv)
    q = args.quick
    reps = 2 if q else 3
    print("relmc node-model benchmark (issue 12)")
    print(f"  python benchmarks/bench_nodes.py{' --quick' if q else ''}   (process CPU time)")
    print(f"  /proc/loadavg at start: {Path('/proc/loadavg').read_text().strip()}")
    bk.exp_draws(np.random.default_rng(0), 10, 1.0)
    n_draw = 5_000_000 if q else 20_000_000
    draw = math.inf
    for _ in range(reps):
        _, dt = bk.timed(bk.exp_draws, np.random.default_rng(bk.SEED), n_draw, 1.0)
        draw = min(draw, dt / n_draw * 1e9)
    print(f"\n  exponential draw, summed (the denominator): {draw:.2f} ns/draw")

    print("\n[1] every node feature on vs off, Llama 3 categories, 1 thread")
    print(f"  {'N GPUs':>10} {'ev/trial':>9} {'on ns/ev':>9} {'draw/ev':>8} {'off ns/ev':>9} "
          f"{'on/off':>6} {'finished':>8} {'no-history ns/ev':>16}")  # fmt: skip
    for n_gpus in (2048, 16_384, 100_000, 1_000_000):
        base = bk.llama3_scenario(n_gpus)
        on, off = nodes_on(base), nodes_off(base)
        pilot = bk.run_blocks(_kernels.simulate_block, kernel_inputs(on, None, 16)[0]) / 16
        n = int(min(max(256, (1e6 if q else 4e6) / max(pilot, 1.0)), 50_000))
        x_on = kernel_inputs(on, None, n)[0]
        x_off = kernel_inputs(off, None, n)[0]
        assert x_on.node_model and not x_off.node_model
        t_on = per_event(x_on, reps)
        t_off = per_event(x_off, reps)
        # the same without per-node history (no lemon detection, no retirement): records
        # only for nodes in repair
        x_nh = dataclasses.replace(x_on, lemon_k=0, retire_after=0)
        t_nh = per_event(x_nh, reps)
        out = bk.allocate_outputs(n, x_on.n_categories)
        ev = bk.run_blocks(_kernels.simulate_block, x_on)
        fin = float(_finished(x_on, out))
        print(f"  {n_gpus:>10,} {ev / n:>9,.0f} {t_on:>9.1f} {draw / t_on:>8.3f} {t_off:>9.1f} "
              f"{t_on / t_off:>6.2f} {fin:>8.2f} {t_nh:>16.1f}", flush=True)  # fmt: skip

    print("\n[2] AIReSim-like: 4,096 nodes, 15 % bad x5, two-stage repair, 16 standbys, 200 spares")
    sc = airesim_like()
    n = 16 if q else 64
    x = kernel_inputs(sc, None, n)[0]
    bk.run_blocks(
        _kernels.simulate_block, dataclasses.replace(x, draw_of_trial=x.draw_of_trial[:2])
    )
    best = math.inf
    for _ in range(reps):
        ev, dt = bk.timed(bk.run_blocks, _kernels.simulate_block, x)
        best = min(best, dt / ev)
    print(f"  {ev / n:,.0f} events per trial; {1 / best / 1e6:.2f} M events/s "
          f"({best * 1e9:.0f} ns/event, draw/event {draw / (best * 1e9):.3f}); "
          f"{1 / best / AIRESIM_FAILURES_PER_S:,.0f}x AIReSim's ~960 failures/s "
          f"at 2,048 servers")  # fmt: skip
    from relmc.sim.simulate import simulate

    ds = simulate(sc, n_trials=n, seed=1, n_threads=1)
    means = {v: float(ds[v].mean()) for v in ("ettr", "standby_swaps", "repairs_auto",
                                               "repairs_manual", "pool_occupancy")}  # fmt: skip
    print("  per trial: " + ", ".join(f"{k} {v:,.3g}" for k, v in means.items()))
    print("\n[3] stragglers and SDC with every node feature on (combined path) vs [1], 1 thread")
    print(f"  {'N GPUs':>10} {'ev/trial':>9} {'ns/ev':>9} {'draw/ev':>8} {'[1] ns/ev':>9} "
          f"{'ratio':>6} {'physics ns/ev':>13} {'finished':>8}")  # fmt: skip
    for n_gpus in (2048, 16_384, 100_000, 1_000_000):
        base = bk.llama3_scenario(n_gpus)
        both, on = physics_nodes_on(base), nodes_on(base)
        pilot = bk.run_blocks(_kernels.simulate_block, kernel_inputs(both, None, 16)[0]) / 16
        n = int(min(max(256, (1e6 if q else 4e6) / max(pilot, 1.0)), 50_000))
        x_both = kernel_inputs(both, None, n)[0]
        x_on = kernel_inputs(on, None, n)[0]
        x_phys = kernel_inputs(physics_nodes_on(base, nodes=False), None, n)[0]
        assert x_both.node_model and x_both.physics and not x_on.physics
        assert x_phys.physics and not x_phys.node_model
        t_both = per_event(x_both, reps)
        t_on = per_event(x_on, reps)
        t_phys = per_event(x_phys, reps)
        out = bk.allocate_outputs(n, x_both.n_categories)
        ev = bk.run_blocks(_kernels.simulate_block, x_both)
        fin = float(_finished(x_both, out))
        print(f"  {n_gpus:>10,} {ev / n:>9,.0f} {t_both:>9.1f} {draw / t_both:>8.3f} "
              f"{t_on:>9.1f} {t_both / t_on:>6.2f} {t_phys:>13.1f} {fin:>8.2f}",
              flush=True)  # fmt: skip

    print(f"\n  /proc/loadavg at end: {Path('/proc/loadavg').read_text().strip()}")
    print(f"  {os.cpu_count()} CPUs; done in {time.process_time():.0f} CPU s")


def _finished(x, out) -> float:
    """Fraction of trials that finished (a run of the same inputs, seed fixed)."""
    root = np.random.SeedSequence(bk.SEED)
    from relmc._seed import child_seed
    from relmc.sim.inputs import kernel_args
    from relmc.sim.simulate import BLOCK_SIZE

    for b in range(-(-x.n_trials // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        block = slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)
        _kernels.simulate_block(rng, *kernel_args(x, out, block))
    return out["finished"].mean()


if __name__ == "__main__":
    main()
