"""Tests for relmc.datasets: bundled data against published values, schema, and input checks.

Expected values are the published numbers of SOURCES.md (sections 1, 2, 5), typed here
as the test oracle; the loader reads them from relmc/data/, so the two must agree.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import relmc
from relmc import cluster
from relmc.datasets import list_datasets, load_counts, load_dataset

NAMES = ["llama3-405b", "pumps", "rsc-1", "rsc-2"]
LLAMA3_HOURS = 54 * 24  # 54-day window, Llama 3 section 3.3.4 [P]
LLAMA3_GPUS = 16384


def check_schema(ds: xr.Dataset) -> None:
    # size-resolved rows (rsc-1's job MTTF) add a job_gpus dim; the fleet rows stay as they are
    assert set(ds.dims) in ({"category"}, {"category", "job_gpus"})
    if "job_gpus" in ds.dims:
        assert ds["job_count"].dims == ("category", "job_gpus")
        assert ds["job_count"].dtype == np.int64 and (ds["job_count"] >= 0).all()
        assert ds["job_hours"].dtype == np.float64 and (ds["job_hours"] >= 0).all()
        assert ds["job_gpus"].dtype == np.int64 and (ds["job_gpus"] >= 1).all()
    assert ds["category"].dtype.kind == "U"
    assert ds["count"].dtype == np.int64 and ds["count"].dims == ("category",)
    assert ds["exposure"].dtype == np.float64 and ds["exposure"].dims == ("category",)
    assert ds["unit"].dtype.kind == "U" and ds["group"].dtype.kind == "U"
    assert (ds["count"] >= 0).all() and (ds["exposure"] > 0).all()
    assert np.isfinite(ds["exposure"]).all()
    assert "units" in ds["exposure"].attrs
    assert len(set(ds["category"].values.tolist())) == ds.sizes["category"]
    for key in ("name", "title", "source", "arxiv", "where", "checked", "notes"):
        assert isinstance(ds.attrs[key], str)
    for key in ("rate_units", "exposure_assumption"):
        assert isinstance(ds.attrs[key], str) and ds.attrs[key]
    assert isinstance(ds.attrs["n_gpus"], int) and isinstance(ds.attrs["gpus_per_node"], int)
    assert isinstance(ds.attrs["duration_hours"], float)
    for value in ds.attrs.values():
        assert isinstance(value, str | int | float) and not isinstance(value, bool)


# ---------------------------------------------------------------------------------------------
# bundled datasets


def test_list_datasets_names_and_lazy_reexport():
    assert list_datasets() == NAMES
    assert relmc.list_datasets() == NAMES
    assert relmc.load_dataset is load_dataset and relmc.load_counts is load_counts


@pytest.mark.parametrize("name", NAMES)
def test_schema_and_name(name):
    ds = load_dataset(name)
    check_schema(ds)
    assert ds.attrs["name"] == name
    assert ds.attrs["notes"]
    assert "[P]" in ds.attrs["checked"] or "[S]" in ds.attrs["checked"]


def test_unknown_dataset_rejected():
    with pytest.raises(ValueError, match="llama3-405b.*'nope'"):
        load_dataset("nope")


def test_llama3_table5_totals():
    ds = load_dataset("llama3-405b")
    assert ds.sizes["category"] == 18
    assert int(ds["count"].sum()) == 419  # section 3.3.4: 419 unexpected [P]
    assert int(ds["maintenance_count"]) == 47  # section 3.3.4: 47 planned [P]
    assert ds["maintenance_count"].dtype == np.int64 and ds["maintenance_count"].dims == ()
    assert int(ds["count"].sel(category="Faulty GPU")) == 148
    assert int(ds["count"].sel(category="GPU HBM3 Memory")) == 72
    # category subtotals by count, SOURCES.md section 1.1 [D]
    by_group = ds["count"].groupby(ds["group"]).sum().to_series().to_dict()
    assert by_group == {
        "GPU": 268,
        "Dependency": 56,
        "Network": 35,
        "Unplanned Maintenance": 32,
        "Host": 21,
        "Unknown": 7,
    }
    assert ds.attrs["n_gpus"] == LLAMA3_GPUS
    assert ds.attrs["gpus_per_node"] == 8
    assert ds.attrs["duration_hours"] == LLAMA3_HOURS
    assert "30.1%" in ds.attrs["notes"] and "35.3%" in ds.attrs["notes"]
    assert "lower bound" in ds.attrs["exposure_assumption"]


def test_llama3_exposure_arithmetic():
    ds = load_dataset("llama3-405b")
    assert ds["unit"].to_series().to_dict() == cluster.LLAMA3_DEFAULT_UNITS
    for cat, unit in cluster.LLAMA3_DEFAULT_UNITS.items():
        expected = cluster.units(LLAMA3_GPUS, unit) * LLAMA3_HOURS
        assert float(ds["exposure"].sel(category=cat)) == expected
    assert float(ds["exposure"].sel(category="GPU HBM3 Memory")) == 16384 * 1296  # GPU-hours
    assert float(ds["exposure"].sel(category="NIC")) == 2048 * 1296  # node-hours
    assert float(ds["exposure"].sel(category="Network Switch/Cable")) == 1024 * 1296  # racks
    assert float(ds["exposure"].sel(category="Dependency")) == 1296  # job: hours
    # SOURCES.md section 1.4 [D]: 0.030 HBM3 interruptions per GPU-year
    hbm3_per_gpu_year = float(ds["count"].sel(category="GPU HBM3 Memory")) / 16384 * 365 / 54
    rate = ds["count"] / ds["exposure"]
    assert math.isclose(float(rate.sel(category="GPU HBM3 Memory")) * 24 * 365, hbm3_per_gpu_year)
    assert round(hbm3_per_gpu_year, 3) == 0.030


def test_llama3_unit_override_recomputes_exposure():
    base = load_dataset("llama3-405b")
    ds = load_dataset("llama3-405b", units={"Software Bug": "job", "Faulty GPU": "node"})
    assert str(ds["unit"].sel(category="Software Bug").item()) == "job"
    assert float(ds["exposure"].sel(category="Software Bug")) == 1296.0
    assert float(ds["exposure"].sel(category="Faulty GPU")) == 2048 * 1296
    xr.testing.assert_identical(ds["count"], base["count"])
    others = [c for c in base["category"].values if c not in ("Software Bug", "Faulty GPU")]
    xr.testing.assert_identical(
        ds["exposure"].sel(category=others), base["exposure"].sel(category=others)
    )


@pytest.mark.parametrize(
    ("units", "needle"),
    [({"Faulty CPU": "gpu"}, "Faulty CPU"), ({"NIC": "server"}, "server")],
)
def test_llama3_bad_override_rejected(units, needle):
    with pytest.raises(ValueError, match=needle):
        load_dataset("llama3-405b", units=units)


def test_pumps_values():
    ds = load_dataset("pumps")
    assert ds["category"].values.tolist() == [f"pump{i:02d}" for i in range(1, 11)]
    # SOURCES.md section 5 [P]
    assert ds["count"].values.tolist() == [5, 1, 5, 14, 3, 19, 1, 1, 4, 22]
    assert ds["exposure"].values.tolist() == [
        94.3,
        15.7,
        62.9,
        126.0,
        5.24,
        31.4,
        1.05,
        1.05,
        2.1,
        10.5,
    ]
    assert int(ds["count"].sum()) == 75
    assert math.isclose(float(ds["exposure"].sum()), 350.24)
    assert set(ds["unit"].values.tolist()) == {"pump"}
    assert ds["exposure"].attrs["units"] == "1000 pump-hours"
    assert ds.attrs["rate_units"] == "events per 1000 pump-hours"


def test_pumps_take_no_unit_override():
    with pytest.raises(ValueError, match="units"):
        load_dataset("pumps", units={"pump01": "gpu"})


@pytest.mark.parametrize(("name", "rate", "gpus"), [("rsc-1", 6.50, 16000), ("rsc-2", 2.34, 8000)])
def test_rsc_count_reproduces_published_rate(name, rate, gpus):
    ds = load_dataset(name)
    assert ds["category"].values.tolist() == ["all"]
    assert ds["unit"].values.tolist() == ["node"]
    assert ds.attrs["n_gpus"] == gpus and ds.attrs["gpus_per_node"] == 8
    node_days = float(ds["exposure"].sum()) / 24
    per_1000_node_days = float(ds["count"].sum()) / node_days * 1000
    # the count is rounded to a whole event: at most half an event off the published rate
    assert abs(per_1000_node_days - rate) <= 0.5 / node_days * 1000
    assert "[D]" in ds.attrs["exposure_assumption"]
    assert f"{rate:.2f}" in ds.attrs["exposure_assumption"]


def test_rsc1_job_mttf_by_size():
    ds = load_dataset("rsc-1")
    # SOURCES.md 2.2 [S-quote]: 47.7 days at 8 GPUs, 7.9 h at 1,024 GPUs; 47.7 x 24 [D]
    assert ds["job_gpus"].values.tolist() == [8, 1024]
    np.testing.assert_allclose(ds["job_mttf_hours"].values, [47.7 * 24, 7.9], rtol=1e-12)
    # pseudo-counts: an assumed 10 failures per size over 10 MTTFs of job-hours
    assert ds["job_count"].values.tolist() == [[10, 10]]
    np.testing.assert_allclose(ds["job_hours"] / ds["job_count"], [[47.7 * 24, 7.9]])
    # provenance says secondary-source quality and labels the assumption
    assert "secondary-source" in ds.attrs["job_mttf_checked"]
    assert "[S-quote]" in ds.attrs["job_mttf_checked"]
    assert "ASSUMPTION" in ds.attrs["job_exposure_assumption"]
    assert "job_gpus" not in load_dataset("rsc-2").dims


def test_rsc_unit_override_keeps_count():
    node = load_dataset("rsc-1")
    gpu = load_dataset("rsc-1", units={"all": "gpu"})
    assert int(gpu["count"].sum()) == int(node["count"].sum())
    assert float(gpu["exposure"].sum()) == pytest.approx(8 * float(node["exposure"].sum()))
    with pytest.raises(ValueError, match="everything"):
        load_dataset("rsc-1", units={"everything": "node"})


@pytest.mark.parametrize("name", NAMES)
def test_netcdf_round_trip(name, tmp_path):
    ds = load_dataset(name)
    path = tmp_path / f"{name}.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    with xr.open_dataset(path, engine="h5netcdf") as back:
        back = back.load()
    xr.testing.assert_identical(back, ds)


def test_load_returns_fresh_objects():
    a = load_dataset("llama3-405b")
    a["count"][0] = 0
    assert int(load_dataset("llama3-405b")["count"].sum()) == 419


# ---------------------------------------------------------------------------------------------
# load_counts: good input

GOOD = """\
# my cluster, 30 days
# another comment
category,count,exposure,unit,group
GPU fault,12,2949120,gpu,GPU

NIC,3,368640,node,Host
hang,2,720,job,
"""


def write(tmp_path, text, name="counts.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_counts_csv(tmp_path):
    ds = load_counts(write(tmp_path, GOOD), n_gpus=4096, duration_hours=720)
    check_schema(ds)
    assert ds["category"].values.tolist() == ["GPU fault", "NIC", "hang"]
    assert ds["count"].values.tolist() == [12, 3, 2]
    assert ds["exposure"].values.tolist() == [2949120.0, 368640.0, 720.0]
    assert ds["unit"].values.tolist() == ["gpu", "node", "job"]
    assert ds["group"].values.tolist() == ["GPU", "Host", ""]
    assert ds.attrs["name"] == "counts"
    assert ds.attrs["n_gpus"] == 4096 and ds.attrs["duration_hours"] == 720.0
    assert ds.attrs["gpus_per_node"] == 8


def test_load_counts_same_from_dataframe_dict_and_csv(tmp_path):
    from_csv = load_counts(write(tmp_path, GOOD))
    frame = pd.DataFrame(
        {
            "category": ["GPU fault", "NIC", "hang"],
            "count": [12, 3, 2],
            "exposure": [2949120.0, 368640.0, 720.0],
            "unit": ["gpu", "node", "job"],
            "group": ["GPU", "Host", None],
        }
    )
    from_frame = load_counts(frame)
    from_dict = load_counts(frame.to_dict(orient="list"))
    for ds in (from_frame, from_dict):
        for var in ("count", "exposure", "unit", "group"):
            xr.testing.assert_identical(ds[var], from_csv[var])
    assert from_csv.attrs["n_gpus"] == 0 and from_csv.attrs["duration_hours"] == 0.0


def test_load_counts_without_exposure_column_computes_it():
    ds = load_counts(
        {"category": ["a", "b"], "count": [1, 0], "unit": ["gpu", "rack"]},
        n_gpus=4096,
        duration_hours=10.0,
    )
    assert ds["exposure"].values.tolist() == [
        cluster.units(4096, "gpu") * 10.0,
        cluster.units(4096, "rack") * 10.0,
    ]
    assert "relmc.cluster.units(4096" in ds.attrs["exposure_assumption"]


def test_load_counts_round_trips_netcdf(tmp_path):
    ds = load_counts(write(tmp_path, GOOD))
    path = tmp_path / "user.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    with xr.open_dataset(path, engine="h5netcdf") as back:
        xr.testing.assert_identical(back.load(), ds)


# ---------------------------------------------------------------------------------------------
# load_counts: bad input, each rejected with the field and the row named

HEAD = "category,count,exposure,unit\n"


@pytest.mark.parametrize(
    ("body", "needles"),
    [
        ("a,1,10,gpu\nb,-1,10,gpu\n", ["row 2", "'b'", "'count'"]),
        ("a,2.5,10,gpu\n", ["row 1", "'a'", "'count'"]),
        ("a,1,10,gpu\nb,1,10,gpu\nc,abc,10,gpu\n", ["row 3", "'c'", "'count'", "not a number"]),
        ("a,,10,gpu\n", ["row 1", "'count'", "empty"]),
        ("a,1,0,gpu\n", ["row 1", "'a'", "'exposure'"]),
        ("a,1,-5,gpu\n", ["row 1", "'exposure'"]),
        ("a,1,nan,gpu\n", ["row 1", "'exposure'"]),
        ("a,1,inf,gpu\n", ["row 1", "'exposure'"]),
        ("a,1,ten,gpu\n", ["row 1", "'exposure'", "not a number"]),
        # a rate above 1e12 per unit-hour (one every 3.6 ns) is no failure process
        ("a,3,1e-300,gpu\n", ["row 1", "'exposure'", "at least (count + 1) / 1e+12 = 4e-12"]),
        ("a,0,9e-13,job\n", ["row 1", "'exposure'", "= 1e-12 unit-hours", "per job-hour"]),
        ("a,1,10,gpu\nb,1,10,gpus\n", ["row 2", "'b'", "'unit'", "gpus"]),
        ("a,1,10,gpu\na,2,10,node\n", ["row 2", "'a'", "'category'", "duplicates row 1"]),
        (",1,10,gpu\n", ["row 1", "'category'", "empty"]),
        ("a,1,10\n", ["row 1", "fields"]),
    ],
)
def test_load_counts_bad_rows(tmp_path, body, needles):
    path = write(tmp_path, "# comment\n" + HEAD + body)
    with pytest.raises(ValueError) as err:
        load_counts(path)
    for needle in needles:
        assert needle in str(err.value)
    assert str(path) in str(err.value)


def test_a_semicolon_or_tab_separated_file_is_named_so(tmp_path):
    for sep, name in ((";", "semicolons"), ("\t", "tabs")):
        text = sep.join(["category", "count", "exposure", "unit"]) + "\n"
        path = write(tmp_path, text + sep.join(["a", "1", "10", "gpu"]) + "\n")
        with pytest.raises(ValueError, match=f"one column holding {name}: the file must be comma"):
            load_counts(path)
    # negative control: a comma-separated file missing a column gets no such hint
    with pytest.raises(ValueError, match=r"missing column\(s\) \['unit'\]; need") as e:
        load_counts(write(tmp_path, "category,count,exposure\na,1,10\n"))
    assert "holding" not in str(e.value)


def test_categories_differing_only_in_case_are_warned_of(tmp_path):
    import warnings

    with pytest.warns(UserWarning, match=r"categories 'GPU' and 'gpu' differ only in case"):
        data = load_counts(write(tmp_path, HEAD + "GPU,1,10,gpu\nHost,2,10,node\ngpu,3,10,gpu\n"))
    assert data.sizes["category"] == 3  # kept apart, as given
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # negative control: distinct names
        load_counts(write(tmp_path, HEAD + "GPU,1,10,gpu\nGPUs,3,10,gpu\n"))


def test_a_computed_exposure_below_the_rate_bound_names_the_window():
    with pytest.raises(ValueError, match=r"exposure n_gpus and duration_hours give, 1e-13") as e:
        load_counts({"category": ["a"], "count": [5], "unit": ["gpu"]}, n_gpus=1,
                    duration_hours=1e-13)  # fmt: skip
    assert e.value.field == "duration_hours" and "field 'exposure'" not in str(e.value)


def test_load_counts_exposure_at_the_rate_bound_is_accepted(tmp_path):
    # negative control of the bound: (count + 1) / exposure = 1e12 exactly loads
    data = load_counts(write(tmp_path, HEAD + "a,3,4e-12,gpu\n"))
    assert float(data["exposure"][0]) == 4e-12


def test_load_counts_reports_file_line(tmp_path):
    # row 2 is on line 5: two comments, the header, row 1
    path = write(tmp_path, "# x\n# y\n" + HEAD + "a,1,10,gpu\nb,-1,10,gpu\n")
    with pytest.raises(ValueError, match=r"row 2 \(line 5, category 'b'\)"):
        load_counts(path)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("category,count,unit\na,1,gpu\n", "missing column(s) ['exposure']"),
        ("category,exposure,unit\na,1,gpu\n", "missing column(s) ['count']"),
        ("count,exposure\n1,1\n", "missing column(s) ['category', 'unit']"),
        ("category,count,count,exposure,unit\na,1,1,1,gpu\n", "duplicate column(s) ['count']"),
    ],
)
def test_load_counts_bad_header(tmp_path, text, needle):
    with pytest.raises(ValueError, match="header") as err:
        load_counts(write(tmp_path, text))
    assert needle in str(err.value)


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "# c\n" + HEAD])
def test_load_counts_empty_file(tmp_path, text):
    with pytest.raises(ValueError, match="empty file|no data rows"):
        load_counts(write(tmp_path, text))


def test_load_counts_bad_dataframe_rows_named():
    frame = pd.DataFrame(
        {
            "category": ["a", "b", "c"],
            "count": [1.0, np.nan, 2.0],
            "exposure": [1.0, 1.0, 1.0],
            "unit": ["gpu", "gpu", "gpu"],
        }
    )
    with pytest.raises(ValueError, match=r"DataFrame: row 2 \(category 'b'\): field 'count'"):
        load_counts(frame)
    frame.loc[1, "count"] = 3.0
    ds = load_counts(frame)  # whole-number floats (pandas' NaN-capable dtype) are accepted
    assert ds["count"].dtype == np.int64 and ds["count"].values.tolist() == [1, 3, 2]
    frame.loc[2, "exposure"] = np.inf
    with pytest.raises(ValueError, match=r"row 3 \(category 'c'\): field 'exposure'"):
        load_counts(frame)


def test_load_counts_bad_columns_mapping():
    with pytest.raises(ValueError, match="different lengths"):
        load_counts({"category": ["a", "b"], "count": [1], "exposure": [1, 1], "unit": ["gpu"]})
    with pytest.raises(ValueError, match="no data rows"):
        load_counts({"category": [], "count": [], "exposure": [], "unit": []})
    with pytest.raises(ValueError, match="path_or_dataframe"):
        load_counts(42)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"n_gpus": 0}, "n_gpus"),
        ({"n_gpus": 2.5}, "n_gpus"),
        ({"duration_hours": -1.0}, "duration_hours"),
        ({"duration_hours": 0.0}, "duration_hours"),  # no window: no exposure
        ({"duration_hours": math.inf}, "duration_hours"),
        ({"duration_hours": math.nan}, "duration_hours"),
    ],
)
def test_load_counts_bad_keywords(tmp_path, kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        load_counts(write(tmp_path, GOOD), **kwargs)


def test_missing_exposure_needs_both_size_and_duration():
    cols = {"category": ["a"], "count": [1], "unit": ["gpu"]}
    with pytest.raises(ValueError, match="n_gpus and duration_hours"):
        load_counts(cols, n_gpus=8)


def test_units_of_every_kind_by_hand():
    # 10,000 GPUs on 8-GPU nodes (1,250), 2 nodes a rack (625 racks and switches), 3,072 GPUs
    # a pod (4 pods, the last part-filled), 1.5 links a GPU; a part-filled node or rack counts
    shape = cluster.ClusterShape(links_per_gpu=1.5)
    got = {u: cluster.units(10_000, u, shape) for u in cluster.UNITS}
    assert got == {"gpu": 10_000.0, "node": 1250.0, "rack": 625.0, "switch": 625.0,
                   "link": 15_000.0, "pod": 4.0, "job": 1.0}  # fmt: skip
    assert cluster.units(10_001, "node") == 1251.0 and cluster.units(10_001, "rack") == 626.0
    assert cluster.units(3072, "pod") == 1.0 and cluster.units(3073, "pod") == 2.0
    with pytest.raises(ValueError, match="unit must be one of"):
        cluster.units(8, "rows")


def test_a_dataframe_indexed_by_category_is_read():
    # the category as the index, named at run time (a new string, not the interned literal):
    # read as the column; an index of another name is not taken for the categories (negative
    # control)
    df = pd.DataFrame({"category": ["A", "B"], "count": [3, 4], "unit": ["gpu", "node"]})
    flat = relmc.load_counts(df, n_gpus=1024, duration_hours=100.0)
    indexed = df.set_index("category").rename_axis("CATEGORY".lower())
    got = relmc.load_counts(indexed, n_gpus=1024, duration_hours=100.0)
    assert got["category"].values.tolist() == ["A", "B"]
    np.testing.assert_array_equal(got["count"].values, flat["count"].values)
    with pytest.raises(ValueError, match="category"):
        relmc.load_counts(df.set_index("category").rename_axis("kind"), n_gpus=1024,
                          duration_hours=100.0)  # fmt: skip


def test_an_exposure_beyond_the_window_warns(tmp_path):
    import warnings

    from relmc.datasets import load_counts

    csv = tmp_path / "c.csv"
    csv.write_text("category,count,exposure,unit\nGPU,24,2949120,gpu\nHost,10,368640,node\n")
    # 2,048 GPUs for 1,440 h hold exactly these exposures (256 nodes): no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_counts(csv, n_gpus=2048, duration_hours=1440)
        load_counts(csv, n_gpus=4096, duration_hours=1440)  # less than the window holds: fine
        load_counts(csv)  # no size: nothing to check against
    # 16,384 GPUs for 100 h hold 1.64e6 GPU-hours, fewer than the column's 2.95e6
    with pytest.warns(UserWarning, match=r"category 'GPU': exposure 2.949e\+06 gpu-hours is more"):
        load_counts(csv, n_gpus=16384, duration_hours=100)


def test_an_exposure_far_below_the_window_warns(tmp_path):
    """A column in GPU-days (1/24 of the GPU-hours) would make every rate 24x: warned of."""
    import warnings

    from relmc.datasets import LOW_EXPOSURE_SHARE, load_counts

    csv = tmp_path / "c.csv"
    hours = 2949120 / 24  # 2,048 GPUs for 1,440 h, in GPU-days
    csv.write_text(f"category,count,exposure,unit\nGPU,24,{hours:g},gpu\nHost,10,368640,node\n")
    with pytest.warns(UserWarning) as rec:
        load_counts(csv, n_gpus=2048, duration_hours=1440)
    (w,) = rec  # one warning, naming the row, the share and the factor
    assert "category 'GPU': exposure 1.229e+05 gpu-hours is 0.0417 of what 2,048 GPUs" in str(
        w.message
    )
    assert "its rate is 24x" in str(w.message) and "not days" in str(w.message)
    # negative controls: at the share's bound nothing is said; half the window is a subset
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        at_bound = 2949120 * LOW_EXPOSURE_SHARE
        csv.write_text(f"category,count,exposure,unit\nGPU,24,{at_bound:g},gpu\n")
        load_counts(csv, n_gpus=2048, duration_hours=1440)
        load_counts(csv)  # no size: nothing to check against
    # node-hours on a per-GPU row (1/8)
    csv.write_text("category,count,exposure,unit\nGPU,24,368640,gpu\n")
    with pytest.warns(UserWarning, match=r"0.125 of what .* its rate is 8x"):
        load_counts(csv, n_gpus=2048, duration_hours=1440)
    # the exposed clock counts the hours the job ran: a share of the window by design
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_counts(csv, n_gpus=2048, duration_hours=1440, exposure_clock="exposed")


# --------------------------------------------------------------------------------------------
# audit of the fitting inputs: sizes, windows and names checked before any work

_TWO_ROWS = {"category": ["GPU", "NIC"], "count": [3, 2], "unit": ["gpu", "node"]}


@pytest.mark.parametrize(
    "kwargs,field,match",
    [
        ({"n_gpus": 999999999999999999999}, "n_gpus", r"n_gpus must be an integer in \[1, 1e8\]"),
        ({"n_gpus": 10**8 + 1}, "n_gpus", r"\[1, 1e8\]"),
        ({"duration_hours": 1e300}, "duration_hours", r"in \(0, 1e6\] hours; got 1e\+300"),
        ({"duration_hours": 1e6 * (1 + 1e-12)}, "duration_hours", r"in \(0, 1e6\] hours"),
        ({"duration_hours": 10**400}, "duration_hours", r"in \(0, 1e6\] hours"),
        ({"duration_hours": math.inf}, "duration_hours", r"in \(0, 1e6\] hours"),
    ],
)
def test_load_counts_refuses_sizes_and_windows_beyond_the_arithmetic(kwargs, field, match):
    """load_counts refuses a cluster over 1e8 GPUs (a scenario's limit) or a window over 1e6 h.

    ``relmc fit --counts ... --observed-gpus 999999999999999999999`` failed writing netCDF
    (an int beyond int64) after the fit; now a FieldError naming the argument and its range.
    """
    args = {"n_gpus": 4096, "duration_hours": 720.0, **kwargs}
    with pytest.raises(relmc.errors.FieldError, match=match) as e:
        load_counts(_TWO_ROWS, **args)
    assert e.value.field == field


def test_load_counts_takes_the_largest_size_and_window():
    """Negative control: 1e8 GPUs over 1e6 h load with finite exposures (1e14 GPU-hours)."""
    d = load_counts(_TWO_ROWS, n_gpus=10**8, duration_hours=1e6)
    assert d["exposure"].values.tolist() == [1e14, 1.25e13]
    assert d.attrs["n_gpus"] == 10**8 and d.attrs["duration_hours"] == 1e6


@pytest.mark.parametrize(
    "name,kwargs,match",
    [
        (["rsc-1"], {}, r"name must be one of llama3-405b, pumps, rsc-1, rsc-2 .*got \['rsc-1'\]"),
        ("", {}, r"name must be one of .*got ''"),
        ("rsc-1", {"units": "node"}, r"units must be a mapping of category -> unit .*got 'node'"),
        ("rsc-1", {"units": [("all", "node")]}, r"units must be a mapping"),
    ],
)
def test_load_dataset_bad_argument_types_are_clear_value_errors(name, kwargs, match):
    """A list for the name, or a str for units, is a ValueError naming the argument.

    They raised ``TypeError: unhashable type`` and "dictionary update sequence element #0
    has length 1". Negative control below: the same with valid types loads.
    """
    with pytest.raises(ValueError, match=match):
        load_dataset(name, **kwargs)
    assert load_dataset("rsc-1", units={"all": "node"}).sizes["category"] == 1


def test_own_counts_and_logs_record_their_planned_maintenance():
    # load_counts / load_events(maintenance_count=N): planned interruptions left out of the
    # counts; the fit records N / window hours, which a projection's default scenario takes
    from relmc.errors import FieldError
    from relmc.events import load_events
    from relmc.projection import default_scenario

    rows = {"category": ["gpu", "net"], "count": [12, 3], "unit": ["gpu", "node"]}
    ds = load_counts(rows, n_gpus=1024, duration_hours=500, maintenance_count=20)
    assert int(ds["maintenance_count"]) == 20 and ds["maintenance_count"].dtype == np.int64
    post = relmc.fit_conjugate(ds, seed=1, n_draws=20)
    assert relmc.FailureModel.from_posterior(post).maintenance_rate == 20 / 500
    assert default_scenario(post).failures.maintenance_rate == 20 / 500
    log = load_events({"time": [1.0, 5.0], "category": ["gpu", "net"]}, n_gpus=64, end=100.0,
                      maintenance_count=4)  # fmt: skip
    assert int(log["maintenance_count"]) == 4
    fitted = relmc.fit_conjugate(log, seed=1, n_draws=20)
    assert relmc.FailureModel.from_posterior(fitted).maintenance_rate == 4 / 100
    assert int(load_counts(rows, n_gpus=8, duration_hours=5, maintenance_count=np.float32(3.0))
               ["maintenance_count"]) == 3  # fmt: skip
    # negative control: without it the fit records no planned maintenance
    plain = relmc.fit_conjugate(load_counts(rows, n_gpus=1024, duration_hours=500), seed=1)
    assert relmc.FailureModel.from_posterior(plain).maintenance_rate == 0.0
    assert "maintenance_count" not in load_events({"time": [1.0], "category": ["gpu"]},
                                                  n_gpus=64, end=100.0)  # fmt: skip
    # bad input: named, with the range; a count without the window's length is refused
    for bad in (-1, 1.5, math.nan, math.inf, True, np.True_, "3", 2**53 + 2, 10**5000, -(10**5000)):
        with pytest.raises(FieldError, match=r"maintenance_count must be a whole number in "
                                              r"\[0, 2\*\*53\]"):  # fmt: skip
            load_counts(rows, n_gpus=8, duration_hours=5, maintenance_count=bad)
        with pytest.raises(FieldError, match="maintenance_count must be a whole number"):
            load_events({"time": [1.0], "category": ["gpu"]}, n_gpus=8, end=10.0,
                         maintenance_count=bad)  # fmt: skip
    with pytest.raises(FieldError, match=r"maintenance_count needs the window's length"):
        load_counts({**rows, "exposure": [1e5, 1e3]}, maintenance_count=3)
    for edge in (0, 2**53):  # both ends of the range are taken
        ds = load_counts(rows, n_gpus=8, duration_hours=5, maintenance_count=edge)
        assert int(ds["maintenance_count"]) == edge
