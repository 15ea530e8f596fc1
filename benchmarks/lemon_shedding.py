"""How much less a job fails than its fitted rates when lemons shed (README, "Lemon nodes").

Llama 3's conjugate fit (250 draws, seed 7) at 16,384 GPUs over its 54-day job: interruptions
per wall-clock day without lemons, and with AIReSim's 15 % bad nodes failing 5x as often
(no lemon detection, unlimited spares), 400 trials each (seed 17); and the long-run factor
of one swap category with an unlimited pool, ``(1 + (m - 1) b) / (1 - f + f m)`` with
``b = f / (m (1 - f) + f)`` (benchmarks/NODES_ANSWERS.md, 2b).

Run: ``python benchmarks/lemon_shedding.py`` (~1 min on 2 cores with warm numba caches).
"""

from __future__ import annotations

import dataclasses

import relmc

F, M = 0.15, 5.0


def main() -> None:
    post = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), seed=7, n_draws=250)
    fm = relmc.FailureModel.from_posterior(post)
    for label, f, m in (("no lemons", 0.0, 1.0), (f"f = {F:g}, m = {M:g}", F, M)):
        sc = relmc.Scenario(
            failures=dataclasses.replace(fm, bad_node_fraction=f, bad_node_multiplier=m)
        )
        p = relmc.project(post, scenario=sc, n_gpus=16384, n_trials=400, seed=17, credible_trials=0)
        mean = float(p["interruptions_per_day_mean"].item())
        se = float(p["interruptions_per_day_se"].item())
        print(
            f"{label}: {mean:.2f} +- {se:.2f} interruptions a day (ETTR {p.ettr_mean.item():.3f})"
        )
    b = F / (M * (1 - F) + F)
    factor = (1 + (M - 1) * b) / (1 - F + F * M)
    print(f"long-run factor, one swap category, unlimited pool: {factor:.3f}")


if __name__ == "__main__":
    main()
