"""fit_fleets against the exact posterior where categories weigh differently in a total.

The design (``weights`` in ``benchmarks/validate_fleets.py``): a categorised fleet of 512 GPUs
with a ``gpu`` and a ``job`` category, and a total-only fleet of 64 GPUs where the job
category weighs 8 times more per pooled rate than in the categorised fleet, so the total sees
the rates through a weighted sum, not their sum. The grid (``Exact2``: the pooled rates'
sum integrated out given the share ``B_1``, which stays on a grid) is derived in that
script's docstring; the full check over seeds is recorded in ``benchmarks/VALIDATION.md``.
"""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
from test_models_fleets_grid import _validate_fleets

from relmc.models import fit_fleets
from relmc.models._common import ConvergenceWarning


@pytest.mark.slow
def test_fleets_match_exact_grid_when_categories_weigh_differently_in_a_total():
    vf = _validate_fleets()
    design = vf.DESIGNS["weights"]
    # 2 x 500 draws: ESS of several hundred per indicator. A clean run: no divergence and
    # r_hat <= 1.02. fit_fleets warns above 1.01 (the reporting threshold), but r_hat's own
    # spread at 2 x 500 draws reaches past 1.01 on a converged run: NUTS's path follows the
    # floating point of the host's BLAS, and one host read 1.011 for one rate at this seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = fit_fleets(design.datasets(), n_draws=500, n_tune=500, n_chains=2, cores=1, seed=5)
    assert int(fit.sample_stats["diverging"].sum()) == 0
    rhat = az.rhat(fit.posterior, var_names=["fleet_rate", "sigma", "alpha", "beta"])
    assert max(float(rhat[v].max()) for v in rhat.data_vars) <= 1.02, rhat
    draws = {k: v for k, v in vf.quantities(fit, design).items() if not k.endswith("]")}
    assert sorted(draws) == ["delta_1", "share", "sigma"]
    # half the script's grid resolution: CDFs at a 4 x 1000 fit's quantiles within 4e-4 of the
    # full grid on this design, against an MC SE of ~0.01 per indicator here
    exact = vf.Exact2(design.reduced2(), res=0.5)
    z = np.array([row[-1] for row in vf.compare(exact, design, draws, az)])
    # sigma, delta and the first category's share of the pooled rates at 5/50/95%: 9
    # z-scores, each N(0, 1) if the sampler is exact; 4 SE bounds a false alarm at ~6e-4
    # for the nine
    assert z.size == 9
    assert np.all(np.abs(z) < 4), z

    # negative control: the exact posterior of the same data read with the job category
    # weighing as the gpu one in the total (the one-sum grid's assumption) must be rejected
    # (at 4 x 1000 draws, z of delta's median about -120, of sigma's about -29)
    wrong = design.reduced2()
    wrong["c"] = np.repeat(wrong["c"][:, :1], 2, axis=1)
    z_bad = np.array([row[-1] for row in vf.compare(vf.Exact2(wrong, res=0.5), design, draws, az)])
    assert np.max(np.abs(z_bad)) > 8, z_bad


@pytest.mark.parametrize(
    ("design", "pinned"),
    [
        ("sweq300", True),
        ("sweep80", True),
        ("equal", False),
        ("weak", False),
        ("apart", False),
        ("llama3-405b + rsc-1", False),  # centred (estimate 10.4 sds from 0): draws as before
    ],
)
def test_target_accept_rises_only_where_a_fleet_is_pinned_near_zero(monkeypatch, design, pinned):
    # Near-equal fleets with many events (a log ratio the counts pin near 0, sampled
    # non-centred) leave a thin ridge where NUTS diverged at 0.95 (sweq300: 35 divergent
    # transitions in 4,000; at 0.99: 0 and 1 at two seeds, every |z| against the grid <= 2.46;
    # benchmarks/VALIDATION.md); fit_fleets then samples at 0.99 by default, elsewhere at 0.95,
    # and a value the caller gives is kept. The sampler is replaced by a spy: no NUTS here.
    from relmc.models import fleets as fleets_module

    seen = []

    class _Stop(Exception):
        pass

    def spy(*args):
        seen.append(args[-1]["target_accept"])
        raise _Stop

    monkeypatch.setattr(fleets_module, "_sample", spy)
    if design.startswith("llama"):
        from relmc import load_dataset

        data = [load_dataset("llama3-405b"), load_dataset("rsc-1")]
    else:
        data = _validate_fleets().DESIGNS[design].datasets()
    for kwargs in ({}, {"target_accept": 0.9}):
        with pytest.raises(_Stop):
            fit_fleets(data, seed=0, **kwargs)
    assert seen == [fleets_module.PINNED_TARGET_ACCEPT if pinned else 0.95, 0.9]


def test_a_total_only_fleet_is_counted_with_its_own_recorded_shape():
    # a fleet of 4,096 GPUs reporting node failures: with 8 GPUs a node (Llama 3's, the
    # bundled fleets' record) a GPU category has 8 GPUs per node-unit; a fleet whose counts
    # were loaded with 4 GPUs a node has 4, whatever shape the fit is given for fleets
    # that record none (the negative control: the same fleet without its record takes it)
    import relmc
    from relmc.cluster import ClusterShape
    from relmc.models._common import check_data
    from relmc.models.fleets import _per_unit

    row = {"category": ["all"], "count": [10], "unit": ["node"]}
    four = ClusterShape(gpus_per_node=4)
    own = relmc.load_counts(row, n_gpus=4096, duration_hours=100.0, shape=four)
    default = relmc.load_counts(row, n_gpus=4096, duration_hours=100.0)
    units = ["gpu", "node", "job"]
    assert _per_unit(check_data(own), "f", units, None).tolist() == [4.0, 1.0, 1 / 1024]
    assert _per_unit(check_data(default), "f", units, four).tolist() == [8.0, 1.0, 1 / 512]
    bare = default.copy()
    bare.attrs = {"n_gpus": 4096}
    assert _per_unit(check_data(bare), "f", units, four).tolist() == [4.0, 1.0, 1 / 1024]
