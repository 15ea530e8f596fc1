"""Tests written for the survivors of the mutation sample over recently changed code.

See ``benchmarks/MUTATION_RECENT.md``: each test names the mutant it kills (sample number,
file:line, cosmic-ray operator).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest


def test_a_negative_whole_bound_keeps_its_sign():
    """Kills #12, relmc/errors.py:26 NumberReplacer (``x < 0`` -> ``x < -1``): -1 lost its sign.

    bound_text writes a negative whole bound with its minus, -1 included.
    """
    from relmc.errors import bound_text

    assert bound_text(-1) == "-1"
    assert bound_text(-1.0) == "-1"
    assert bound_text(-2) == "-2"
    assert bound_text(-(10**8)) == "-1e8"
    assert bound_text(0) == "0"
    assert bound_text(float("-inf")) == "-inf"


def test_an_exposure_exactly_one_percent_above_the_window_is_not_warned_of():
    """Kills #51, relmc/datasets.py:790 Gt_GtE (``e > 1.01 * most`` -> ``>=``).

    "More than 1% above" what the window holds warns; exactly 1% above does not, the next
    float above does.
    """
    from relmc.cluster import units
    from relmc.datasets import warn_exposure_against_window

    most = units(1000, "gpu") * 100.0
    edge = 1.01 * most
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_exposure_against_window(["GPU"], [edge], ["gpu"], 1000, 100.0, None, "t")
    with pytest.warns(UserWarning, match="is more than"):
        warn_exposure_against_window(
            ["GPU"], [np.nextafter(edge, np.inf)], ["gpu"], 1000, 100.0, None, "t"
        )


def test_a_window_attribute_beyond_any_float_is_a_value_error():
    """Kills #57, relmc/models/_common.py:227 ExceptionReplacer (``except OverflowError``).

    An int ``duration_hours`` beyond any float (10**400) in a dataset's attributes is refused
    as the other out-of-range windows are (a ValueError naming it), not an OverflowError.
    """
    from relmc.datasets import load_dataset
    from relmc.models._common import check_data

    data = load_dataset("llama3-405b")
    data.attrs = {**data.attrs, "duration_hours": 10**400}
    with pytest.raises(ValueError, match=r"attrs\['duration_hours'\].*\[0, 1e6\]"):
        check_data(data)


def test_options_given_per_day_in_minutes_or_days_become_per_hour_and_hours():
    """Kills #23, relmc/cli/options.py:153 Div_FloorDiv (per_day ``float(s) / 24.0`` -> ``//``).

    ``--maintenance-per-day 12`` is 0.5 per hour (``//`` made it 0), ``--restart-minutes 30``
    0.5 h, ``--compute-days 1.5`` 36 h; each stored as a plain float, not the converter's
    ``Given``.
    """
    from relmc.cli import build_parser
    from relmc.cli.inputs import check_scenario_options

    argv = ["project", "--maintenance-per-day", "12", "--restart-minutes", "30"]
    ov = check_scenario_options(build_parser().parse_args([*argv, "--compute-days", "1.5"]))
    got = (
        ov["failures"]["maintenance_rate"],
        ov["policy"]["restart_hours"],
        ov["job"]["compute_hours"],
    )
    assert got == (0.5, 0.5, 36.0)
    assert all(type(v) is float for v in got)


def test_maintenance_count_at_its_largest_is_taken_and_beyond_it_refused():
    """Kills #60, relmc/models/_common.py:271 LtE_NotEq (``0 <= m <= MAX_COUNT`` -> ``!=``).

    A dataset's ``maintenance_count`` of 2**53 (MAX_COUNT) is taken; 2**54 is refused by name
    (the mutant refused the first and took the second).
    """
    from relmc.datasets import MAX_COUNT, load_dataset
    from relmc.models._common import check_data

    data = load_dataset("llama3-405b")
    assert MAX_COUNT == 2**53
    data["maintenance_count"] = MAX_COUNT
    check_data(data)
    data["maintenance_count"] = 2**54
    with pytest.raises(ValueError, match=r"data\['maintenance_count'\] must be one whole"):
        check_data(data)


def test_a_category_axis_is_typed_from_its_own_category():
    """Kills #35, relmc/sweep/spec.py:749 Eq_Lt (``c.name == name`` -> ``c.name < name``).

    A category's own axis of ints on a float field (``detection_hours``, each category of the
    default in turn) is held as floats, read from that category in the cells: one spec with
    the floats. The mutant read another category (or none) and kept the ints. The ``*`` path
    is typed from the first category (negative control).
    """
    from relmc.sweep import SweepSpec

    tiny = {"seed": 7, "n_trials": 8, "base": {"job": {"compute_hours": 50}}}
    base = SweepSpec.from_dict({**tiny, "axes": {"policy.restart_hours": [0.1]}})
    names = base._base_scenario.failures.names
    assert len(names) >= 2
    for name in (*names, "*"):
        path = f"failures.categories.{name}.detection_hours"
        ints = SweepSpec.from_dict({**tiny, "axes": {path: [1, 2]}})
        floats = SweepSpec.from_dict({**tiny, "axes": {path: [1.0, 2.0]}})
        assert ints.axes == ((path, (1.0, 2.0)),), name
        assert all(type(v) is float for v in ints.axes[0][1]), name
        assert ints.sha256() == floats.sha256(), name


def test_an_axis_number_the_field_cannot_hold_exactly_stays_as_given():
    """Kills #36, relmc/sweep/spec.py:770 Eq_LtE (``held == v`` -> ``held <= v``).

    An int above 2**53 on a float field is held as the float below it (2**53 + 1 -> 2**53):
    not an equal number, so the axis keeps the int as given (the docstring of
    ``_typed_axes``) and the spec differs from one of 2**53. The mutant put the held float in
    its place, making the two specs one.
    """
    from relmc.sweep import SweepSpec

    tiny = {"seed": 7, "n_trials": 8, "base": {"job": {"compute_hours": 50}}}
    path = "failures.categories.Faulty GPU.bad_node_multiplier"
    big = SweepSpec.from_dict({**tiny, "axes": {path: [2**53 + 1, 2]}})
    assert big.axes == ((path, (2**53 + 1, 2.0)),)
    assert type(big.axes[0][1][0]) is int and type(big.axes[0][1][1]) is float
    edge = SweepSpec.from_dict({**tiny, "axes": {path: [2**53, 2]}})
    assert edge.axes == ((path, (2.0**53, 2.0)),)
    assert type(edge.axes[0][1][0]) is float
    assert big.sha256() != edge.sha256()
