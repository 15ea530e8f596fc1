"""Closed-form checks of relmc.simulate (and of indep.py where cheap).

Four families, each printing relmc's mean (± SE), the exact value and z:

``tp``     no failures, diurnal throughput: the wall is S^-1(W + n delta + persist) exactly;
           also slowdown, checkpoint loss and power swings (relmc, exact and indep.py).
``mart``   no pauses (detection 0, no swaps, no maintenance): E[N_c] = E[int_0^wall lambda_c]
           (martingale), for diurnal + burn-in, diurnal + wear-out and a weekly profile with
           zero hours + trend (100,000 / 100,000 / 40,000 trials).
``strag``  one straggler category with delta = persist = R = 0: expected loss, arrivals and
           handled stragglers from a renewal ODE in the progress (speed 0.02 and 0.3);
           indep.py's mean wall too.
``sdc``    K = 1 and a fixed SDC latency L > tau: every detection restarts from scratch, so the
           number of detections is geometric; wall, SDC rework, from-scratch restarts,
           rollbacks, undetected share, swings and detection loss against their closed forms
           (L = 1.7, tau = 0.5, detection 0.3; and L = 0.8, tau = 0.25, detection 0).

    python benchmarks/outside_physics/closed.py [WHICH] [--out DIR]

WHICH   ``all`` (default), ``tp`` (seconds), ``mart``, ``strag`` or ``sdc``;
--out   folder for the log ``log_closed_{WHICH}.txt`` (default ``results/`` beside this script).
"""

import argparse
import math
import sys
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep  # noqa: E402
from indep import cat, default_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402
from scenarios import profile168  # noqa: E402

warnings.simplefilter("ignore")


def z(mean_obs, se, exact):
    """Return the z-score of a mean against an exact value."""
    return (
        (mean_obs - exact) / se if se > 0 else (0.0 if abs(mean_obs - exact) < 1e-9 else math.inf)
    )


def cum_grid(model, i, tmax, h=1e-3):
    """Return a grid and the cumulative intensity of category `i` on it (midpoint rule)."""
    n = int(math.ceil(tmax / h)) + 2
    tm = (np.arange(n) + 0.5) * h
    c = model.cats[i]
    if model.q[i] is not None:
        k = np.floor((model.w0 + tm) % 168.0).astype(int)
        mod = np.asarray(model.q[i])[np.minimum(k, 167)]
    else:
        mod = 1.0 + c["amp"] * np.cos(indep.OMEGA * (model.s["h0"] + tm - c["peak"]))
    tr = (1.0 + tm / model.s["A0"]) ** (model.s["beta"] - 1.0) if model.s["beta"] != 1.0 else 1.0
    lam = c["rate"] * mod * tr
    grid = np.concatenate([[0.0], np.cumsum(lam) * h])
    return np.arange(n + 1) * h, grid


def martingale(name, spec, n=100_000, seed=11):
    """No pauses (detection 0, no swaps, no maintenance): E[N_c] = E[int_0^wall lambda_c]."""
    ds = relmc.simulate(indep.build_relmc(spec), n_trials=n, seed=seed, n_threads=1)
    m = indep.Model(spec)
    wall = ds.wall_hours.values
    print(
        f"== martingale {name}: n={n}, mean wall {wall.mean():.4f}, finished "
        f"{ds.finished.values.mean()}"
    )
    for i, c in enumerate(spec["cats"]):
        tg, cg = cum_grid(m, i, wall.max())
        Lam = np.interp(wall, tg, cg)
        N = ds.interruptions.sel(category=c["name"]).values
        d = N - Lam
        print(
            f"   {c['name']:6s} E[N]={N.mean():.5f}  E[int lambda]={Lam.mean():.5f}  "
            f"z={d.mean() / (d.std(ddof=1) / math.sqrt(n)):.2f}"
        )
    return ds


def throughput_nofail(W, tau, delta, persist, b, h0, phi):
    """Compare a no-failure job under diurnal throughput with its exact wall."""
    spec = default_spec(
        W=W, tau=tau, delta=delta, persist=persist, b=b, h0=h0, phi_s=phi, cats=[cat("none", 0.0)]
    )
    ds = relmc.simulate(indep.build_relmc(spec), n_trials=4, seed=1, n_threads=1)
    m = indep.Model(spec)
    n = math.ceil(W / tau - 1e-9)
    nominal = W + n * delta + persist
    T = m.Sinv_from(0.0, nominal)
    w = ds.wall_hours.values
    sl = ds.lost_hours.sel(cause="slowdown").values
    ck = ds.lost_hours.sel(cause="checkpoint").values
    sw = ds.power_swings.values
    ind = indep.run_indep(spec, 2, 1)
    print(
        f"== no-failure throughput W={W} tau={tau} delta={delta:.4g} persist={persist} b={b} "
        f"h0={h0} phi={phi}: n={n}"
    )
    print(
        f"   wall relmc {w[0]:.10f} exact {T:.10f} indep {ind['wall_hours'][0]:.10f} "
        f"(diff {w[0] - T:.2e})"
    )
    print(
        f"   slowdown relmc {sl[0]:.10f} exact {T - nominal:.10f};  checkpoint relmc {ck[0]:.10f} "
        f"exact {n * delta + persist:.10f};  swings relmc {sw[0]} exact {2 * n if delta > 0 else 2}"
    )


def straggler_ode(lam, sigma, D, W, h=2e-5):
    """Solve the renewal ODE of one straggler category (delta = persist = R = 0).

    Returns the expected straggler loss, arrivals and handled stragglers at progress W.
    """
    n = int(round(W / h))
    k = int(round(sigma * D / h))
    L = np.zeros(n + 1)
    N = np.zeros(n + 1)
    Hd = np.zeros(n + 1)
    e = math.exp(-lam * h)
    for j in range(1, n + 1):
        y = j * h
        if j > k:
            lj, nn, hh = (1 - sigma) * D + L[j - k], 1.0 + N[j - k], 1.0 + Hd[j - k]
        else:
            lj, nn, hh = (1 - sigma) * y / sigma, 1.0, 0.0
        # X' = lam (f - X): exact step with f frozen at the new point (O(h) error)
        L[j] = L[j - 1] * e + (1 - e) * lj
        N[j] = N[j - 1] * e + (1 - e) * nn
        Hd[j] = Hd[j - 1] * e + (1 - e) * hh
    return L[n], N[n], Hd[n]


def straggler_check(lam=0.5, sigma=0.02, D=1.0, W=20.0, n=100_000):
    """Compare one straggler category (no other overheads) with `straggler_ode`."""
    spec = default_spec(
        W=W,
        tau=0.5,
        delta=0.0,
        persist=0.0,
        R=0.0,
        cats=[cat("slow", lam, kind="straggler", speed=sigma, detect=D)],
    )
    ds = relmc.simulate(indep.build_relmc(spec), n_trials=n, seed=5, n_threads=1)
    Lx, Nx, Hx = straggler_ode(lam, sigma, D, W)
    Lx2, Nx2, Hx2 = straggler_ode(lam, sigma, D, W, h=1e-5)
    w = ds.wall_hours.values
    N = ds.interruptions.sel(category="slow").values
    sw = ds.power_swings.values
    st = ds.lost_hours.sel(cause="straggler").values
    print(
        f"== straggler closed form lam={lam} sigma={sigma} D={D} W={W} (ODE h-refinement diff "
        f"{abs(Lx - Lx2):.1e})"
    )
    for nm, arr, ex in (
        ("wall", w, W + Lx2),
        ("straggler lost", st, Lx2),
        ("arrivals", N, Nx2),
        ("power swings", sw, 2 + 2 * Hx2),
    ):
        se = arr.std(ddof=1) / math.sqrt(n)
        print(
            f"   {nm:15s} relmc {arr.mean():.5f} ±{se:.5f}  exact {ex:.5f}  "
            f"z={z(arr.mean(), se, ex):.2f}"
        )
    b = indep.run_indep(spec, 5000, 9)
    se = b["wall_hours"].std(ddof=1) / math.sqrt(5000)
    print(
        f"   indep wall {b['wall_hours'].mean():.5f} ±{se:.5f} "
        f"z={z(b['wall_hours'].mean(), se, W + Lx2):.2f}"
    )


def sdc_K1(lam=0.04, L=1.7, tau=0.5, W=10.0, d=0.3, n=100_000, exp_lat=False):
    """Check SDC at delta = persist = R = 0, K = 1, fixed L > tau (all detections from scratch)."""
    spec = default_spec(
        W=W,
        tau=tau,
        delta=0.0,
        persist=0.0,
        R=0.0,
        K=1,
        cats=[cat("sdc", lam, kind="sdc", sdc_L=L, detect=d)],
    )
    ds = relmc.simulate(indep.build_relmc(spec), n_trials=n, seed=6, n_threads=1)
    a = W - L
    q = 1 - math.exp(-lam * a)
    nf = q / (1 - q)
    EX = 1 / lam - a * math.exp(-lam * a) / (1 - math.exp(-lam * a))
    ex = dict(
        wall=W + nf * (EX + L + d),
        sdc_rework=nf * (EX + L),
        from_scratch=nf,
        rollbacks=nf,
        undetected=1 - math.exp(-lam * L),
        interruptions=nf,
        swings=2 + 2 * nf,
        detection=nf * d,
    )
    obs = dict(
        wall=ds.wall_hours.values,
        sdc_rework=ds.sdc_rework_hours.values,
        from_scratch=ds.sdc_from_scratch.values,
        rollbacks=ds.sdc_rollbacks.values,
        undetected=ds.sdc_undetected.values,
        interruptions=ds.interruptions.sel(category="sdc").values,
        swings=ds.power_swings.values,
        detection=ds.lost_hours.sel(cause="detection").values,
    )
    print(f"== SDC K=1 fixed latency L={L} > tau={tau}: lam={lam}, W={W}, detect={d}")
    for k in ex:
        arr = obs[k].astype(float)
        se = arr.std(ddof=1) / math.sqrt(n)
        print(
            f"   {k:14s} relmc {arr.mean():.5f} ±{se:.5f}  exact {ex[k]:.5f}  "
            f"z={z(arr.mean(), se, ex[k]):.2f}"
        )
    eq = (ds.sdc_from_scratch.values == ds.interruptions.sel(category="sdc").values).mean()
    print(f"   share of trials with from_scratch == detections: {eq}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "which", nargs="?", default="all", choices=["all", "tp", "mart", "strag", "sdc"]
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    which = args.which
    log_to(args.out, f"log_closed_{which}.txt")
    if which in ("all", "tp"):
        throughput_nofail(20.0, 0.5, 1 / 60, 0.3, 0.9, 17.3, 5.0)
        throughput_nofail(10.3, 0.7, 0.05, 0.65, 0.9, 17.3, 21.0)
        throughput_nofail(50.0, 1.0, 0.0, 0.4, 0.99, 0.0, 12.0)
        throughput_nofail(3.0, 0.25, 0.1, 0.0, 0.5, 23.9, 0.0)
    if which in ("all", "mart"):
        martingale(
            "diurnal amp1 h0=17.3 + burn-in 0.3 A0=0.5",
            default_spec(
                h0=17.3,
                beta=0.3,
                A0=0.5,
                R=0.2,
                cats=[cat("a", 2.0, amp=1.0, peak=4.0), cat("b", 0.5, amp=1.0, peak=16.0)],
            ),
        )
        martingale(
            "diurnal + wear-out 4, A0=2",
            default_spec(
                W=8.0,
                h0=17.3,
                beta=4.0,
                A0=2.0,
                R=0.1,
                cats=[cat("a", 0.002, amp=1.0, peak=10.0), cat("b", 0.001, amp=0.5, peak=22.0)],
            ),
        )
        martingale(
            "weekly profile with zeros, start Sun 17.3, + trend 1.5",
            default_spec(
                W=60.0,
                tau=1.0,
                h0=17.3,
                start_day=6,
                beta=1.5,
                A0=20.0,
                R=0.3,
                cats=[
                    cat("p", 0.2, profile=profile168()),
                    cat("q", 0.1, profile=[0] * 20 + [6, 0, 0, 0]),
                ],
            ),
            n=40_000,
        )
    if which in ("all", "strag"):
        straggler_check()
        straggler_check(lam=0.2, sigma=0.3, D=2.5, W=15.0)
    if which in ("all", "sdc"):
        sdc_K1()
        sdc_K1(lam=0.1, L=0.8, tau=0.25, W=8.0, d=0.0)
