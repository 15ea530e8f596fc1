"""CF and UDUNITS conventions on the labelled outputs.

Every numeric data variable of a relmc result carries a ``units`` string that UDUNITS and pint
both read (one of :data:`ALLOWED`), and every data variable a non-empty ``long_name`` that no
other variable of the same dataset repeats. Datasets relmc builds say ``Conventions``.
"""

import numpy as np
import pytest

import relmc
from relmc.models import fit_conjugate
from relmc.rates import summarize_rates
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path

#: "1/d" is per day; "1" is dimensionless (ratios, fractions, counts).
ALLOWED = {"h", "1/h", "1/d", "1", "MW", "W"}
#: summarize_rates' per unit-year mean: a Julian year, which UDUNITS' "year" (tropical) and
#: "a" (are, an area) are not.
PER_YEAR = "1/(365.25 d)"


def _scenario():
    cats = (Category("a", rate=2e-4, unit="gpu"), Category("b", rate=1e-3, unit="node"))
    return Scenario(cluster=Cluster(n_gpus=512), failures=FailureModel(cats), job=Job(50.0),
                    policy=Policy(restart_hours=0.3))  # fmt: skip


@pytest.fixture(scope="module")
def results():
    sc = _scenario()
    sim = relmc.simulate(sc, n_trials=40, seed=1)
    llama = relmc.load_dataset("llama3-405b")
    fit = fit_conjugate(llama, n_draws=20, seed=2)
    return {
        "simulate": sim,
        "summarize": relmc.summarize(sim),
        "project": relmc.project(fit, n_gpus=[1024, 2048], n_trials=30, seed=3, keep_trials=True),
        "compare": relmc.compare(
            {"a": sc, "b": replace_path(sc, "policy.restart_hours", 0.1)}, n_trials=40, seed=4
        ),
        "optimize_checkpoint": relmc.optimize_checkpoint(None, sc, n_trials=40, seed=5),
        "posterior": fit.posterior,
        "observed_data": fit.observed_data,
        "constant_data": fit.constant_data,
        "summarize_rates": summarize_rates(fit, n_gpus=2048),
    }


NAMES = [
    "simulate",
    "summarize",
    "project",
    "compare",
    "optimize_checkpoint",
    "posterior",
    "observed_data",
    "constant_data",
    "summarize_rates",
]


def _numeric(da):
    return np.issubdtype(da.dtype, np.number) or np.issubdtype(da.dtype, np.bool_)


@pytest.mark.parametrize("name", NAMES)
def test_units_in_allowed_set(results, name):
    ds = results[name]
    allowed = ALLOWED | ({PER_YEAR} if name == "summarize_rates" else set())
    checked = ["rate"] if name == "posterior" else list(ds.data_vars)
    for var in checked:
        da = ds[var]
        if not _numeric(da):  # strings (e.g. stopped_by) have no units in CF
            assert "units" not in da.attrs, var
            continue
        assert da.attrs.get("units") in allowed, (name, var, da.attrs.get("units"))


@pytest.mark.parametrize("name", NAMES)
def test_long_names_present_and_unique(results, name):
    ds = results[name]
    checked = ["rate", "rate_per_million"] if name == "posterior" else list(ds.data_vars)
    names = {}
    for var in checked:
        long_name = ds[var].attrs.get("long_name", "")
        assert isinstance(long_name, str) and long_name.strip(), (name, var)
        assert long_name not in names, (name, var, names.get(long_name), long_name)
        names[long_name] = var


@pytest.mark.parametrize("name", NAMES)
def test_conventions(results, name):
    assert results[name].attrs.get("Conventions") == "CF-1.10"
    # every output records the relmc version that made it
    assert results[name].attrs.get("relmc_version") == relmc.__version__


def test_units_parse_with_pint(results):
    import pint  # in the test extra: a missing pint fails rather than skips

    ureg = pint.UnitRegistry()
    seen = set()
    for ds in results.values():
        for var in ds.data_vars:
            units = ds[var].attrs.get("units")
            if units is not None:
                seen.add(str(units))
    assert seen
    for units in sorted(seen):
        # "1" is dimensionless; the others are plain unit expressions
        q = ureg.parse_expression(units)
        assert q.magnitude > 0, units
    day = ureg.parse_expression("1/d")
    assert day.to("1/h").magnitude == pytest.approx(1 / 24)
    assert ureg.parse_expression("MW").to("W").magnitude == pytest.approx(1e6)
