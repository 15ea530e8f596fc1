"""relmc's event-log generator against an independently written one, with closed forms.

``relmc.events.synthetic_events`` (thinning of the fleet's process, events handed to nodes) and
the generator of ``benchmarks/validate_events_independent.py`` (each node's process by a time
change, its integrated intensity by quadrature, written from the documented formulas) must
both match closed forms of the documented process: counts per category (mean, variance), the
hour of day of events (chi-square), the event times within the window (KS), per-node counts
(variance, cross-category covariance) and the share of events on bad nodes. A shared mistake
in the diurnal phase, the trend, the "rate at the window's end" convention, the lemon
normalisation or the gpu/node units would break these, and each family has a negative control
that must fail. The fits on independent logs (coverage, a repair-time misspecification) are
the script's, not CI's.

Tolerances (the script's ``Z`` and ``P``): a z score within 4 SE (two-sided normal tail 6e-5)
for means, variances and shares, a p value >= 1e-4 for chi-square and KS; over the 48 checks
of the agreement test a false alarm has probability about 0.4%, and the seeds are fixed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load():
    spec = importlib.util.spec_from_file_location(
        "validate_events_independent", ROOT / "benchmarks" / "validate_events_independent.py"
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


vi = _load()


def _failures(res):
    return {name: round(float(stat), 4) for name, (_, stat, ok) in res.items() if not ok}


@pytest.mark.parametrize("design", ["TRUTH", "FRAILTY_POOLED"])
def test_both_generators_match_the_documented_process(design):
    # 30 logs per generator (about 37,000 events at TRUTH): a 10% error in a rate moves the
    # count mean by about 8-9 SE and the count given the bad nodes by about 11-16 SE; the
    # controls below detect their (larger) shifts at fewer logs
    d = vi.Design(getattr(vi, design))
    relmc = vi.agreement(d, vi.relmc_logs(d, 30, 7))
    independent = vi.agreement(d, vi.independent_logs(d, 30, 8))
    assert len(relmc) == (15 if design == "TRUTH" else 11)  # lemon checks only with lemons
    assert _failures(relmc) == {}
    assert _failures(independent) == {}


@pytest.mark.parametrize("k", range(len(vi.CONTROLS)), ids=[c[0] for c in vi.CONTROLS])
def test_negative_controls_are_detected(k):
    # the independent generator at a perturbed truth, checked against the clear truth's
    # closed forms with the same tolerances, at 16 logs: the family named must fail (at 60
    # logs the weakest, trend shape 0.6, gave KS p 3e-14; at 12 logs 4e-7)
    label, changes, options, family = vi.CONTROLS[k]
    res = vi.control(vi.TRUTH, changes, options, 16, 100 + k)
    assert vi.detected(res, family), (label, {n: v[1] for n, v in res.items()})


def test_independent_generator_has_the_documented_integral():
    # its quadrature against relmc's closed form (the one place the two meet): 1e-8 relative
    # is far below the Monte Carlo checks' resolution and far above quadrature error
    from relmc.events import shape_integral

    d = vi.Design(vi.TRUTH)
    for c in range(2):
        ref = shape_integral(
            0.0,
            d.duration,
            start_hour=d.h0,
            amplitude=d.amp[c],
            peak_hour=d.peak[c],
            trend_shape=d.beta,
            fleet_age_hours=d.age,
            duration_hours=d.duration,
        )
        assert d.cum[c].total == pytest.approx(float(ref), rel=1e-8)
