"""What users do with the command: compare, machine-readable summaries, sweep templates,
adaptive precision flags, their own counts, and the help text."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import xarray as xr
from clirun import one_error_line
from clirun import run_cli as run

from relmc.cli import main

#: a small, fast job: 2,048 GPUs, 5 days of compute
SMALL = ["--n-gpus", "2048", "--compute-days", "5", "--seed", "1"]


def error_in_process(argv, capsys) -> str:
    """Exit 2 and one stderr line from main(argv): return that line."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("relmc: error: ")
    return err[0]


# ------------------------------------------------------------------------------------ compare


def test_parse_policy():
    from relmc.cli.compare import parse_policy

    assert parse_policy("fast:restart_minutes=3") == ("fast", {"policy.restart_hours": 0.05})
    name, f = parse_policy("x:policy.checkpoint_interval=daly, n_spares=unlimited,compute_days=2")
    assert name == "x"
    assert f == {
        "policy.checkpoint_interval": "daly",
        "policy.n_spares": None,
        "job.compute_hours": 48.0,
    }
    assert parse_policy("ci:checkpoint_interval_minutes=6")[1] == {
        "policy.checkpoint_interval": 0.1
    }
    _, f = parse_policy("hang:failures.categories.Faulty GPU.detection_minutes=30")
    assert f == {"failures.categories.Faulty GPU.detection_hours": 0.5}
    # the interval is in hours already: its _hours spelling is the field itself
    assert parse_policy("ci:checkpoint_interval_hours=3")[1] == {"policy.checkpoint_interval": 3}
    _, f = parse_policy("burn-in:failures.categories.Faulty GPU.rate_multiplier=0.5")
    assert f == {"failures.categories.Faulty GPU.rate_multiplier": 0.5}
    # a rate profile (24 or 168 numbers) is refused by name with where to set it, whatever
    # its spelling (a comma would otherwise split it into a second, malformed item)
    import argparse

    for text in ("[1,2]", "[1 2]", "1"):
        with pytest.raises(argparse.ArgumentTypeError, match="set it in a scenario TOML"):
            parse_policy(f"day:failures.categories.*.rate_profile={text}")
    # negative control: a daily cycle's one-number fields pass
    _, f = parse_policy("day:failures.categories.*.diurnal_amplitude=0.5")
    assert f == {"failures.categories.*.diurnal_amplitude": 0.5}


def test_compare_prints_each_policy_and_writes_compare_nc(tmp_path, capsys):
    out = tmp_path / "c"
    argv = ["compare", *SMALL, "--n-trials", "300", "--out", str(out)]
    argv += ["--policy", "fast:restart_minutes=2", "--policy", "slow:restart_minutes=60"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(out / "compare.nc", engine="h5netcdf") as ds:
        assert ds["scenario"].values.tolist() == ["baseline", "fast", "slow"]
        assert ds.attrs["baseline"] == "baseline" and ds.attrs["relmc_run_id"] in text
        assert ds["ettr"].dims == ("scenario", "trial") and ds.sizes["trial"] == 300
        assert ds["draw"].dims == ("trial",)
        # shorter restarts gain, longer ones lose (negative control), each beyond 4 SE
        fast, slow = ds.sel(scenario="fast"), ds.sel(scenario="slow")
        assert float(fast.gain_mean) > 4 * float(fast.gain_se)
        assert float(slow.gain_mean) < -4 * float(slow.gain_se)
        med = float(ds["ettr_quantile"].sel(scenario="fast", quantile=0.5))
        gain = f"{float(fast.gain_mean):+.4f} +- {float(fast.gain_se):.4f}"
        per_day = ds["interruptions_per_day_quantile"].sel(scenario="slow")
        lo, mid, hi = (float(per_day.sel(quantile=q)) for q in (0.05, 0.5, 0.95))
    assert f"{med:.3f} [" in text and gain in text
    assert "interruptions/day" in text and f"{mid:.3g} [{lo:.3g}, {hi:.3g}]" in text
    assert "fast: policy.restart_hours=0.03333" in text


def test_compare_multiplier_and_the_interval_a_rule_chose(tmp_path, capsys):
    out = tmp_path / "c"
    argv = ["compare", *SMALL, "--n-trials", "200", "--seed", "5", "--out", str(out)]
    argv += ["--policy", "daly:checkpoint_interval=daly"]
    argv += ["--policy", "worse:failures.categories.Faulty GPU.rate_multiplier=4"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(out / "compare.nc", engine="h5netcdf") as ds:
        ci = ds["checkpoint_interval_hours"]
        assert ds.attrs["dataset"] == "llama3-405b" and ds.attrs["model"] == "conjugate"
        base = float(ci.sel(scenario="baseline"))
        daly = float(ci.sel(scenario="daly"))
        assert daly != base and float(ci.sel(scenario="worse")) == base
        # four times the failures of the largest category: a loss beyond 4 SE
        b = ds.sel(scenario="worse")
        assert float(b.gain_mean) < -4 * float(b.gain_se)
    assert f"checkpoint intervals the rules chose: daly {60 * daly:.3g} min" in text


def test_compare_baseline_option(tmp_path, capsys):
    argv = ["compare", *SMALL, "--n-trials", "50", "--out", str(tmp_path / "c")]
    argv += ["--policy", "fast:restart_minutes=2", "--baseline", "fast"]
    assert main(argv) == 0
    with xr.open_dataset(tmp_path / "c" / "compare.nc", engine="h5netcdf") as ds:
        assert ds.attrs["baseline"] == "fast"
        assert float(ds.gain_mean.sel(scenario="fast")) == 0.0


def test_compare_at_several_sizes(tmp_path, capsys):
    out = tmp_path / "c"
    argv = ["compare", "--n-gpus", "16384,2048", "--compute-days", "5", "--seed", "1"]
    argv += ["--n-trials", "100", "--out", str(out), "--csv", "s.csv"]
    argv += ["--policy", "fast:restart_minutes=2", "--policy", "daly:checkpoint_interval=daly"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(out / "compare.nc", engine="h5netcdf") as ds:
        assert ds["n_gpus"].values.tolist() == [2048, 16384]
        assert ds["ettr"].dims == ("n_gpus", "scenario", "trial")
        ci = 60 * ds["checkpoint_interval_hours"].sel(scenario="daly").values
        for n in (2048, 16384):
            r = ds.sel(n_gpus=n, scenario="fast")
            gain = f"{float(r.gain_mean):+.4f} +- {float(r.gain_se):.4f}"
            assert f"{n:,}  fast " in text and gain in text
    assert "2,048, 16,384 GPUs; baseline policy" in text
    assert f"rules chose (at 2,048 / 16,384 GPUs): daly {ci[0]:.3g} / {ci[1]:.3g} min" in text
    header = (out / "s.csv").read_text().splitlines()[0]
    assert header.startswith("scenario,") and "gain_mean[2048]" in header


COMPARE_BAD = [
    ([], "--policy: give at least one policy"),
    (["--policy", "fast"], "--policy"),
    (["--policy", "fast:bogus=1"], "unknown field 'bogus'"),
    (["--policy", "fast:checkpoint_intervall=1"], "did you mean 'checkpoint_interval'?"),
    (["--policy", "fast:restart_minutes=-1"], "--policy fast: policy.restart_hours"),
    (["--policy", "a:restart_minutes=2", "--policy", "a:restart_minutes=3"], "used twice"),
    (["--policy", "baseline:restart_minutes=2"], "used twice"),
    (["--policy", "a:restart_minutes=2", "--baseline", "b"], "--baseline"),
    (["--policy", "a:failures.categories.nope.detection_hours=1"], "nope"),
    (["--policy", "a:restart_minutes=2", "--n-trials", "1"], "in [2, 1e8]"),
    # the fit gives the rates: a rate change would be ignored, so it is refused with the
    # field that works; every policy runs at --n-gpus
    (["--policy", "a:failures.categories.Faulty GPU.rate=1e-3"], ".rate_multiplier"),
    (["--policy", "a:failures.categories.*.rate=1e-3"], "*.rate_multiplier"),
    # a category the data lack is named as such, a rate among its fields or not (it was
    # refused as a fit category's rate), and the ways to add one are said
    (
        [
            "--policy",
            "s:failures.categories.Slow.kind=straggler,failures.categories.Slow.rate=2e-5",
        ],
        "the data have no category 'Slow'",
    ),
    (["--policy", "s:failures.categories.Slow.kind=straggler"], "needs a scenario TOML"),
    (["--policy", "big:n_gpus=32768"], "every policy runs at --n-gpus"),
    (["--policy", "big:cluster.n_gpus=32768"], "every policy runs at --n-gpus"),
    (["--policy", "a:restart_minutes=2", "--n-gpus", "2048,0"], "(option --n-gpus)"),
    (["--policy", "a:restart_minutes=2", "--n-gpus", "2048,,4096"], "comma-separated list"),
]


@pytest.mark.parametrize(("argv", "text"), COMPARE_BAD, ids=[" ".join(a) for a, _ in COMPARE_BAD])
def test_compare_bad_input(argv, text, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = error_in_process(["compare", *argv, "--out", str(tmp_path / "never")], capsys)
    assert text in line
    assert list(tmp_path.iterdir()) == []


def test_compare_bad_policy_subprocess(tmp_path):
    r = run("compare", "--policy", "fast:restart_minutes=-2", "--out", "o", cwd=tmp_path)
    assert "policy.restart_hours" in one_error_line(r)
    assert list(tmp_path.iterdir()) == []


def test_project_keep_trials(tmp_path, capsys):
    base = ["project", "--n-gpus", "2048,4096", "--compute-days", "5", "--n-trials", "300"]
    base += ["--seed", "3", "--no-plot"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert main([*base, "--keep-trials", "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    with (
        xr.open_dataset(tmp_path / "a" / "projection.nc", engine="h5netcdf") as a,
        xr.open_dataset(tmp_path / "b" / "projection.nc", engine="h5netcdf") as b,
    ):
        assert "ettr" not in a and "trial" not in a.dims  # off by default: unchanged
        assert b["ettr"].dims == ("n_gpus", "trial") and b.sizes["trial"] == 300
        assert b["draw"].dims == ("trial",)
        assert b["draw"].values.tolist() == list(range(300))  # 4,000 draws: trial i uses draw i
        np.testing.assert_allclose(b["ettr"].mean("trial"), b["ettr_mean"], rtol=1e-12)
        xr.testing.assert_identical(a["ettr_quantile"], b["ettr_quantile"])


# ------------------------------------------------------------------------ --json, --csv, --quiet


def _csv_rows(text: str) -> list[dict[str, str]]:
    import csv
    import io

    return list(csv.DictReader(io.StringIO(text)))


def test_project_json_and_csv_hold_the_netcdf_numbers(tmp_path, capsys):
    import json

    out = tmp_path / "p"
    argv = ["project", "--n-gpus", "2048,4096", "--compute-days", "5", "--n-trials", "200"]
    argv += ["--seed", "2", "--no-plot", "--out", str(out), "--json", "s.json", "--csv", "s.csv"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "ETTR" in text and "wrote " + str(out / "s.json") in text
    doc = json.loads((out / "s.json").read_text())
    rows = _csv_rows((out / "s.csv").read_text())
    with xr.open_dataset(out / "projection.nc", engine="h5netcdf") as ds:
        assert doc["relmc_run_id"] == ds.attrs["relmc_run_id"]
        assert doc["command"] == "relmc project" and doc["attrs"]["n_trials"] == 200
        assert doc["coords"]["n_gpus"] == [2048, 4096]
        for name in ("ettr_mean", "ettr_se", "mttf_hours_quantile", "lost_fraction_mean"):
            var = doc["variables"][name]
            assert var["dims"] == list(ds[name].dims)
            np.testing.assert_array_equal(np.array(var["values"]), ds[name].values)
        assert [int(r["n_gpus"]) for r in rows] == [2048, 4096]
        for r, n in zip(rows, (2048, 4096), strict=True):
            row = ds.sel(n_gpus=n)
            assert float(r["ettr_mean"]) == float(row["ettr_mean"])
            assert float(r["ettr_quantile[0.5]"]) == float(row["ettr_quantile"].sel(quantile=0.5))
            assert float(r["lost_fraction_mean[rework]"]) == float(
                row["lost_fraction_mean"].sel(cause="rework")
            )


def test_json_on_stdout_sends_the_report_to_stderr(tmp_path, capsys):
    import json

    toml = tmp_path / "s.toml"
    toml.write_text("[cluster]\nn_gpus = 2048\n[job]\ncompute_hours = 100\n")
    out = tmp_path / "sim"
    argv = ["simulate", str(toml), "--n-trials", "100", "--seed", "1", "--out", str(out)]
    assert main([*argv, "--json", "-"]) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)  # stdout is the JSON alone
    assert "ETTR mean" in cap.err
    assert doc["files"] == [str(out / "simulation.nc")]
    with xr.open_dataset(out / "simulation.nc", engine="h5netcdf") as ds:
        assert doc["variables"]["ettr_mean"]["values"] == float(ds["ettr"].mean())
        assert doc["relmc_run_id"] == ds.attrs["relmc_run_id"]
    # --quiet: no report anywhere; the CSV alone on stdout
    assert main([*argv, "--csv", "-", "--quiet"]) == 0
    cap = capsys.readouterr()
    assert cap.err == ""
    (row,) = _csv_rows(cap.out)
    assert 0 < float(row["ettr_mean"]) < 1
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_fit_optimize_compare_summaries(tmp_path, capsys):
    import json

    assert main(["fit", "--seed", "1", "--out", str(tmp_path / "f"), "--csv", "-"]) == 0
    rows = _csv_rows(capsys.readouterr().out)
    post = __import__("arviz").from_netcdf(str(tmp_path / "f" / "posterior.nc"))
    mean = post.posterior["rate"].mean(("chain", "draw"))
    assert [r["category"] for r in rows] == mean["category"].values.tolist()
    # each rate's unit beside it (a rate per unit-hour is unreadable without it)
    assert [r["unit"] for r in rows] == post.posterior["unit"].values.tolist()
    assert [float(r["rate_mean"]) for r in rows] == pytest.approx(mean.values, rel=1e-12)
    assert rows[0]["count"] == "148"

    argv = ["optimize", *SMALL, "--n-trials", "60", "--intervals", "0.3,0.6,2"]
    assert main([*argv, "--out", str(tmp_path / "o"), "--json", "o.json"]) == 0
    capsys.readouterr()
    doc = json.loads((tmp_path / "o" / "o.json").read_text())
    with xr.open_dataset(tmp_path / "o" / "optimize.nc", engine="h5netcdf") as ds:
        assert doc["coords"]["rule"] == ds["rule"].values.tolist()
        assert doc["variables"]["gain"]["values"] == ds["gain"].values.tolist()

    argv = ["compare", *SMALL, "--n-trials", "60", "--policy", "fast:restart_minutes=2"]
    assert main([*argv, "--out", str(tmp_path / "c"), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    with xr.open_dataset(tmp_path / "c" / "compare.nc", engine="h5netcdf") as ds:
        assert "ettr" not in doc["variables"] and "trial" not in doc["coords"]
        assert doc["variables"]["gain_mean"]["values"] == ds["gain_mean"].values.tolist()


def test_optimize_at_the_longest_given_interval_warns_and_is_not_refined(tmp_path, capsys):
    # 2,048 GPUs for 5 days: on seed 2's search trials Young's 53 min beats Daly's and both
    # beat the given 18 and 36 min, so the best is the longest evaluated: a warning, and no
    # refinement (which would need a neighbour beyond it). Near the optimum the ETTR curve is
    # flat, so which interval wins on 60 trials is the seed's (on seeds 1, 3, 4 the best is
    # shorter and is refined); results depend only on the inputs and the seed
    small = [*SMALL[:-1], "2"]
    assert SMALL[-2] == "--seed"
    argv = ["optimize", *small, "--n-trials", "60", "--intervals", "0.3,0.6"]
    with warnings.catch_warnings():  # shown as the command shows them (not errors)
        warnings.simplefilter("always")
        assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert "relmc: warning: the best checkpoint interval, 53.4 min, is the longest" in err, err
    with xr.open_dataset(tmp_path / "o" / "optimize.nc", engine="h5netcdf") as ds:
        searched = ds["interval"].values
        assert float(ds["optimal_interval_hours"]) == searched.max()
        assert searched.size == 4  # the two given, Young's and Daly's: nothing refined


SUMMARY_BAD = [
    (["--json", "-", "--csv", "-"], "both print on stdout"),
    (["--json", "sub/s.json"], "--json takes a file name inside --out"),
    (["--csv", ".."], "--csv takes a file name"),
    (["--json", "projection.nc"], "already one of this run's files"),
    (["--json", "a.x", "--csv", "a.x"], "already one of this run's files"),
]


@pytest.mark.parametrize(("argv", "text"), SUMMARY_BAD, ids=[" ".join(a) for a, _ in SUMMARY_BAD])
def test_summary_options_bad_input(argv, text, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = error_in_process(["project", *argv, "--out", str(tmp_path / "never")], capsys)
    assert text in line
    assert list(tmp_path.iterdir()) == []


def test_summary_bad_name_subprocess(tmp_path):
    r = run("fit", "--json", "a/b.json", "--out", "o", cwd=tmp_path)
    assert "--json" in one_error_line(r)
    assert list(tmp_path.iterdir()) == []


SPEC = """\
seed = 1
n_trials = 32
store = "cube.zarr"
[base.job]
compute_hours = 100
[axes]
"cluster.n_gpus" = [2048, 4096]
"policy.restart_hours" = [0.1, 0.5]
"""


def test_sweep_open_csv(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    assert main(["sweep", "run", str(spec), "--no-progress", "--shard", "0", "--shards", "2"]) == 0
    capsys.readouterr()
    store = str(tmp_path / "cube.zarr")
    assert main(["sweep", "open", store, "--csv"]) == 0
    rows = _csv_rows(capsys.readouterr().out)
    from relmc.sweep import open_sweep

    cube = open_sweep(store)
    assert [(int(r["n_gpus"]), float(r["restart_hours"])) for r in rows] == [
        (2048, 0.1),
        (2048, 0.5),
        (4096, 0.1),
        (4096, 0.5),
    ]
    assert {"ettr_mean", "ettr_se", "wall_hours_mean", "done"} <= set(rows[0])
    # variables with extra dims: a column per label, as simulate --csv writes them
    assert {"lost_hours_mean[rework]", "ettr_quantile[0.05]", "ettr_quantile[0.95]"} <= set(rows[0])
    assert not any("[" in k and "trial" in k for k in rows[0])
    # after the axes and done, how each cell ran: the interval a rule resolved to too
    assert list(rows[0])[2:7] == [
        "done",
        "n_trials",
        "stopped_by",
        "checkpoint_interval_hours",
        "finished_fraction",
    ]
    assert "cell_checksum" not in rows[0] and "stopped_code" not in rows[0]
    for r in rows:
        cell = cube.sel(n_gpus=int(r["n_gpus"]), restart_hours=float(r["restart_hours"]))
        if r["done"] == "True":
            assert float(r["ettr_mean"]) == float(cell["ettr_mean"])
            assert int(r["n_trials"]) == int(cell["n_trials"]) > 0
            assert r["stopped_by"] == "n_trials"
            assert float(r["checkpoint_interval_hours"]) == float(cell["checkpoint_interval_hours"])
            assert float(r["finished_fraction"]) == float(cell["finished_fraction"])
            for cause in cell["cause"].values:
                got = float(r[f"lost_hours_mean[{cause}]"])
                assert got == float(cell["lost_hours_mean"].sel(cause=cause))
            assert float(r["ettr_quantile[0.5]"]) == float(cell["ettr_quantile"].sel(quantile=0.5))
        else:  # shard 1 was not run: its cells are empty in every column
            assert {k for k, v in r.items() if v != ""} == {"n_gpus", "restart_hours", "done"}
    assert sum(r["done"] == "True" for r in rows) == 2
    assert main(["sweep", "open", store, "--csv", str(tmp_path / "t" / "cube.csv")]) == 0
    out = capsys.readouterr().out.splitlines()  # the file, and its rows under the header
    assert [s for s in out if s.startswith("wrote ")][0].endswith("cube.csv (4 cells)"), out
    assert _csv_rows((tmp_path / "t" / "cube.csv").read_text()) == rows
    assert not list((tmp_path / "t").glob(".relmc-staging-*"))


def test_sweep_open_netcdf(tmp_path, capsys):
    """``--netcdf``: the whole cube in one file; a mixed axis as labels, its values in JSON."""
    import json

    from relmc.sweep import open_sweep

    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace('"policy.restart_hours" = [0.1, 0.5]', MIXED))
    assert main(["sweep", "run", str(spec), "--no-progress", "--shard", "0", "--shards", "2"]) == 0
    capsys.readouterr()
    store = str(tmp_path / "cube.zarr")
    target = tmp_path / "t" / "cube.nc"
    assert main(["sweep", "open", store, "--netcdf", str(target)]) == 0
    assert capsys.readouterr().out.strip().endswith("cube.nc (2 of 4 cells done)")
    cube = open_sweep(store, load=True)
    with xr.open_dataset(target) as back:
        assert list(back.checkpoint_interval.values) == ["0.5", "daly"]
        assert json.loads(back.checkpoint_interval.attrs["values_json"]) == [0.5, "daly"]
        assert back.attrs["relmc_sweep_spec"] == cube.attrs["relmc_sweep_spec"]
        assert set(back.data_vars) == set(cube.data_vars)
        for name in cube.data_vars:  # every value as the store holds it (NaN: not done)
            np.testing.assert_array_equal(back[name].values, cube[name].values, err_msg=name)
    assert not list((tmp_path / "t").glob(".relmc-staging-*"))
    # one format at a time; a store that is not one writes nothing
    assert main(["sweep", "open", store, "--netcdf", str(tmp_path / "x.nc"), "--csv"]) == 2
    assert "not allowed with argument --netcdf" in capsys.readouterr().err
    assert main(["sweep", "open", str(tmp_path / "none.zarr"), "--netcdf", "y.nc"]) == 2
    capsys.readouterr()
    assert main(["sweep", "open", store, "--netcdf", "-"]) == 2
    assert "--netcdf: needs a file path" in capsys.readouterr().err
    assert not (tmp_path / "x.nc").exists() and not (tmp_path / "y.nc").exists()


MIXED = '"policy.checkpoint_interval" = [0.5, "daly"]'


# ------------------------------------------------------------- sweep init, overrides, precision


def test_sweep_init_template_runs_and_n_trials_is_part_of_the_identity(tmp_path, capsys):
    spec = tmp_path / "grid.toml"
    assert main(["sweep", "init", str(spec)]) == 0
    assert "wrote" in capsys.readouterr().out
    text = spec.read_text()
    assert "[precision]" in text and "# " in text and 'store = "grid.zarr"' in text
    argv = ["sweep", "run", str(spec), "--no-progress", "--n-trials", "4"]
    assert main(argv) == 0
    assert "computed 6 cells" in capsys.readouterr().out
    from relmc.sweep import open_sweep

    cube = open_sweep(str(tmp_path / "grid.zarr"))
    assert bool(cube["done"].all()) and int(cube["n_trials"].max()) == 4
    assert cube.sizes["n_gpus"] == 3 and cube.sizes["restart_hours"] == 2
    # another n_trials is another spec: refused on this store, as any spec change
    line = error_in_process([*argv[:-1], "5"], capsys)
    assert "different sweep spec" in line and "n_trials" in line
    # init never replaces a file
    line = error_in_process(["sweep", "init", str(spec)], capsys)
    assert "exists" in line and spec.read_text() == text


# ------------------------------------------------------------------ simulate --init (template)

#: the template's TOML tables, and the dataclass whose fields each holds
TEMPLATE_SECTIONS = {
    "[cluster]": "Cluster",
    "[job]": "Job",
    "[policy]": "Policy",
    "[failures]": "FailureModel",
    "[[failures.categories]]": "Category",
}


def _template_fields(text: str) -> dict[str, dict[str, tuple[bool, str, str]]]:
    """{table: {field: (commented out, value text, the comment block above it)}}."""
    import re

    out: dict[str, dict[str, tuple[bool, str, str]]] = {}
    section, block = None, []
    for line in text.splitlines():
        if line in TEMPLATE_SECTIONS:
            section, block = line, []
            out[section] = {}
            continue
        m = re.match(r"^(# )?([a-z][a-z_]*) = (.*)$", line)
        if m and section is not None:
            name = m.group(2)
            assert name not in out[section], (section, name)
            out[section][name] = (m.group(1) is not None, m.group(3), " ".join(block))
            block = []
        elif line.startswith("# "):
            block.append(line[2:])
        else:
            block = []
    return out


def _same(value, default) -> bool:
    # the template writes 1/60 h as 0.0166667: 7 digits, so a relative 1e-5
    if isinstance(default, float) and isinstance(value, int | float):
        return abs(value - default) <= 1e-5 * abs(default)
    if isinstance(default, tuple) and isinstance(value, list):  # TOML arrays are lists
        return tuple(value) == default
    return value == default and type(value) is type(default)


def test_scenario_template_lists_every_field_with_its_default():
    import dataclasses
    import re
    import tomllib

    import relmc.scenario
    from relmc.cli.simulate import scenario_template

    tables = _template_fields(scenario_template("s.toml"))
    assert set(tables) == set(TEMPLATE_SECTIONS)
    for section, cls_name in TEMPLATE_SECTIONS.items():
        fields = dataclasses.fields(getattr(relmc.scenario, cls_name))
        if cls_name == "FailureModel":  # its categories are the [[failures.categories]] tables
            fields = [f for f in fields if f.name != "categories"]
        assert sorted(tables[section]) == sorted(f.name for f in fields), section
        for f in fields:
            commented, value, block = tables[section][f.name]
            where = f"{section} {f.name}"
            assert block, f"{where}: no comment says what it means"
            if f.default is dataclasses.MISSING:  # Category.name
                assert not commented and "Required" in block, where
                continue
            if f.default is None:  # an example value; the comment says it is unset by default
                assert "default: unset" in block.lower(), where
                continue
            if not commented:  # a value set for the example: the comment gives the default
                m = re.search(r"Default: (\S+?)[.,;]?(\s|$)", block)
                assert m, f"{where}: the comment does not give the default"
                value = m.group(1)
            parsed = tomllib.loads(f"v = {value}")["v"]
            assert _same(parsed, f.default), (where, parsed, f.default)


def test_scenario_template_field_check_catches_a_missing_or_wrong_field():
    from relmc.cli.simulate import scenario_template

    text = scenario_template("s.toml")
    tables = _template_fields(text.replace("# swap_hours = 0.0\n", ""))
    assert "swap_hours" not in tables["[policy]"]  # a dropped field is seen as missing
    tables = _template_fields(text.replace("# repair_hours = 72.0", "# repair_hours = 48.0"))
    _, value, _ = tables["[policy]"]["repair_hours"]
    assert not _same(float(value), 72.0)  # a wrong default is seen as wrong


def test_simulate_init_writes_a_template_that_loads_and_simulates(tmp_path):
    import tomllib

    from relmc import Scenario

    r = run("simulate", "--init", "my.toml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "wrote my.toml" in r.stdout
    text = (tmp_path / "my.toml").read_text()
    assert "relmc simulate my.toml --n-trials" in text  # the usage comment names the file
    with open(tmp_path / "my.toml", "rb") as f:
        sc = Scenario.from_dict(tomllib.load(f))
    assert sc.cluster.n_gpus == 16384 and sc.job.compute_hours == 720.0
    assert sc.failures.names == ("All unexpected interruptions",)
    # never over an existing file, and nothing else is written
    line = one_error_line(run("simulate", "--init", "my.toml", cwd=tmp_path))
    assert "'my.toml' exists" in line and "--init" in line
    assert (tmp_path / "my.toml").read_text() == text
    r = run("simulate", "my.toml", "--n-trials", "20", "--seed", "1", "--out", "o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "relmc simulate: my.toml on 16,384 GPUs, 20 trials" in r.stdout
    # the policy was left at its defaults: the assumed line says so and where to set them
    assert "set them in my.toml: policy.restart_hours" in r.stderr
    with xr.open_dataset(tmp_path / "o" / "simulation.nc", engine="h5netcdf") as ds:
        assert ds.sizes["trial"] == 20 and float(ds["ettr"].mean()) > 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.toml", "o"]


def test_simulate_init_default_path_and_bad_use(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--init"]) == 0
    assert (tmp_path / "scenario.toml").is_file()
    line = error_in_process(["simulate", "x.toml", "--init", "y.toml"], capsys)
    assert "--init writes a template" in line
    line = error_in_process(["simulate"], capsys)
    assert "give a scenario TOML" in line and "--init" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scenario.toml"]


def test_sweep_array_larger_than_the_grid_is_refused(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)  # 4 cells
    line = error_in_process(["sweep", "submit", str(spec), "--array", "5", "--dry-run"], capsys)
    assert "slurm.array must be at most the number of cells (4)" in line
    assert line.endswith("(option --array)")
    assert main(["sweep", "submit", str(spec), "--array", "4", "--dry-run"]) == 0
    assert "#SBATCH --array=0-3" in capsys.readouterr().out
    spec.write_text(SPEC + "[slurm]\narray = 9\n")  # the same from the spec: no flag named
    line = error_in_process(["sweep", "submit", str(spec), "--dry-run"], capsys)
    assert "slurm.array" in line and "(option" not in line
    # a flag overrides the table's field, the rest of the table stands (as --help says)
    spec.write_text(SPEC + '[slurm]\narray = 9\ntime = "00:07:00"\n')
    assert main(["sweep", "submit", str(spec), "--array", "2", "--dry-run"]) == 0
    script = capsys.readouterr().out
    assert "#SBATCH --array=0-1" in script and "#SBATCH --time=00:07:00" in script
    # the API refuses it too (it made the script before)
    from relmc.errors import FieldError
    from relmc.sweep import SlurmOptions, submit

    spec.write_text(SPEC)
    with pytest.raises(FieldError, match=r"slurm\.array must be at most the number of cells"):
        submit(spec, options=SlurmOptions(array=5), dry_run=True)
    assert "--array=0-3" in submit(spec, options=SlurmOptions(array=4), dry_run=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_precision_flags_project_and_simulate(tmp_path, capsys):
    argv = ["project", "--n-gpus", "2048", "--compute-days", "5", "--n-trials", "20000"]
    argv += ["--seed", "1", "--no-plot", "--target-se", "0.002", "--out", str(tmp_path / "p")]
    assert main(argv) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(tmp_path / "p" / "projection.nc", engine="h5netcdf") as ds:
        n = int(ds["n_trials"].sel(n_gpus=2048))
        assert n < 20000 and n % 256 == 0 and str(ds["stopped_by"].values[0]) == "target"
        assert float(ds["ettr_se"].sel(n_gpus=2048)) <= 0.002
    assert f"2,048: {n:,} (target)" in text

    toml = tmp_path / "s.toml"
    toml.write_text("[cluster]\nn_gpus = 131072\n[job]\ncompute_hours = 200\n")
    argv = ["simulate", str(toml), "--n-trials", "5000", "--seed", "1", "--hopeless-ettr", "0.9"]
    assert main([*argv, "--out", str(tmp_path / "s")]) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(tmp_path / "s" / "simulation.nc", engine="h5netcdf") as ds:
        assert ds.attrs["stopped_by"] == "hopeless" and ds.sizes["trial"] == 512
    assert "512 trials (adaptive precision: budget 5,000, stopped by hopeless)" in text
    # --min-trials: the first check after one block (256) instead of two; rounded up to blocks
    for m, want in (("256", 256), ("300", 512)):
        assert main([*argv, "--min-trials", m, "--out", str(tmp_path / f"m{m}")]) == 0
        with xr.open_dataset(tmp_path / f"m{m}" / "simulation.nc", engine="h5netcdf") as ds:
            assert ds.sizes["trial"] == want and ds.attrs["stopped_by"] == "hopeless", m
    capsys.readouterr()


PRECISION_BAD = [
    (["--min-trials", "1"], "--min-trials", "--min-trials"),
    (["--min-trials", "600"], "--min-trials: goes with a target", "--target-se"),
    (["--target-se", "0"], "precision.target_se", "--target-se"),
    (["--target-rse", "-1"], "precision.target_rse", "--target-rse"),
    (["--hopeless-ettr", "1.5"], "precision.hopeless_ettr", "--hopeless-ettr"),
    (["--target-se", "abc"], "--target-se", "--target-se"),
]


@pytest.mark.parametrize(
    ("argv", "field", "flag"), PRECISION_BAD, ids=[" ".join(a) for a, _, _ in PRECISION_BAD]
)
@pytest.mark.parametrize("command", ["project", "simulate"])
def test_precision_flags_bad_input(command, argv, field, flag, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text("")
    cmd = [command] + (["s.toml"] if command == "simulate" else [])
    line = error_in_process([*cmd, *argv, "--out", str(tmp_path / "never")], capsys)
    assert field in line and flag in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_precision_flag_subprocess(tmp_path):
    r = run("project", "--target-rse", "0", "--out", "o", cwd=tmp_path)
    line = one_error_line(r)
    assert "precision.target_rse" in line and line.endswith("(option --target-rse)")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------- your own data, no surprises

COUNTS = """\
category,count,exposure,unit,group,recovery,detection_minutes
GPU,40,2e6,gpu,GPU,,
Host,10,2.5e5,node,,swap,
Hang,5,2e6,gpu,Software,restart,25
Crash,8,2e6,gpu,GPU,,0
"""


def test_recovery_rules_json_round_trip_and_old_records_unchanged():
    from relmc.defaults import LLAMA3_RULES, RecoveryRules

    assert "category_" not in LLAMA3_RULES.to_json()  # records without them are unchanged
    rules = RecoveryRules(
        ("NCCL Watchdog Timeouts",),
        ("",),
        category_recovery=(("Host", "swap"),),
        category_detection_hours=(("Hang", 0.5), ("NCCL Watchdog Timeouts", 0.0)),
    )
    back = RecoveryRules.from_attrs({"recovery_rules": rules.to_json()}, LLAMA3_RULES)
    assert back == rules
    assert back.recovery("", "Host") == "swap" and back.recovery("", "Other") == "restart"
    assert back.detection_hours("Hang") == 0.5
    assert back.detection_hours("NCCL Watchdog Timeouts") == 0.0  # explicit wins over the rule


def test_counts_recovery_columns_reach_the_scenario(tmp_path, capsys):
    from relmc.models._common import az
    from relmc.scenario import FailureModel

    csv = tmp_path / "c.csv"
    csv.write_text(COUNTS)
    assert main(["fit", "--counts", str(csv), "--seed", "1", "--out", str(tmp_path / "f")]) == 0
    head = capsys.readouterr().out.splitlines()[1]
    assert head.startswith("recovery: recovery from the recovery column")
    assert "detection from the detection_minutes column" in head
    fm = FailureModel.from_posterior(az.from_netcdf(str(tmp_path / "f" / "posterior.nc")))
    got = {c.name: (c.recovery, c.detection_hours) for c in fm.categories}
    assert got == {
        "GPU": ("swap", 0.0),  # blank: by group (GPU swaps)
        "Host": ("swap", 0.0),  # explicit, though its blank group alone would restart
        "Hang": ("restart", 25 / 60),
        "Crash": ("swap", 0.0),
    }


def test_counts_without_recovery_columns_say_which_defaults_apply(tmp_path, capsys):
    csv = tmp_path / "c.csv"
    csv.write_text("category,count,exposure,unit\nGPU,40,2e6,gpu\nHost,10,2.5e5,node\n")
    argv = ["project", "--counts", str(csv), "--n-gpus", "2048", "--compute-days", "2"]
    assert main([*argv, "--n-trials", "20", "--no-plot", "--out", str(tmp_path / "p")]) == 0
    head = capsys.readouterr().out.splitlines()[1]
    assert "no recovery or group column: every category restart-only" in head
    assert "no detection_minutes column" in head
    assert main(["project", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "recovery (restart|swap)" in help_text and "every category is restart-only" in help_text


@pytest.mark.parametrize(
    ("row", "text"),
    [
        ("Bad,1,1e5,gpu,,fix,", "row 5 (line 6, category 'Bad'): field 'recovery' must be"),
        ("Bad,1,1e5,gpu,,,-5", "field 'detection_minutes' must be a finite number of minutes"),
        ("Bad,1,1e5,gpu,,,soon", "field 'detection_minutes' is not a number"),
    ],
)
def test_counts_bad_recovery_columns(row, text, tmp_path, capsys):
    csv = tmp_path / "c.csv"
    csv.write_text(COUNTS + row + "\n")
    out = tmp_path / "never"
    line = error_in_process(["fit", "--counts", str(csv), "--out", str(out)], capsys)
    assert line.startswith("relmc: error: --counts: ") and text in line
    assert "blank:" in line  # the message says what a blank cell gets
    assert not out.exists()


def test_counts_bad_recovery_subprocess(tmp_path):
    (tmp_path / "c.csv").write_text(COUNTS.replace(",swap,", ",Swap!,"))
    r = run("project", "--counts", "c.csv", "--out", "o", cwd=tmp_path)
    assert "field 'recovery' must be restart or swap" in one_error_line(r)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv"]


def test_observed_gpus_exposure_uses_the_cluster_shape():
    from relmc.cli import build_parser, inputs

    argv = ["fit", "--counts", "c.csv", "--observed-gpus", "1024", "--observed-hours", "100"]

    def exposure(*extra):
        args = build_parser().parse_args([*argv, *extra])
        # load_counts takes columns as well as a CSV path
        args.counts = {"category": ["G", "H", "S"], "count": [1, 1, 1]}
        args.counts["unit"] = ["gpu", "node", "rack"]
        return inputs.load_data(args)["exposure"].values.tolist()

    assert exposure() == [1024 * 100.0, 128 * 100.0, 64 * 100.0]  # 8 GPUs/node, 2 nodes/rack
    assert exposure("--gpus-per-node", "4", "--nodes-per-rack", "4") == [
        1024 * 100.0,
        256 * 100.0,
        64 * 100.0,
    ]
    args = build_parser().parse_args(
        ["project", *argv[1:], "--gpus-per-node", "16"]  # project takes them as cluster fields
    )
    args.counts = {"category": ["H"], "count": [1], "unit": ["node"]}
    assert inputs.load_data(args)["exposure"].values.tolist() == [64 * 100.0]


@pytest.mark.parametrize("command", ["project", "optimize", "compare"])
def test_units_that_do_not_scale_with_gpus_are_refused_up_front(command, tmp_path, capsys):
    argv = [command, "--dataset", "pumps", "--out", str(tmp_path / "never")]
    argv += ["--policy", "a:restart_minutes=2"] if command == "compare" else []
    line = error_in_process(argv, capsys)
    assert line == (
        "relmc: error: --dataset pumps: unit(s) pump do not scale with a cluster of GPUs; "
        f"relmc {command} needs units among gpu, node, rack, switch, link, pod, job "
        "(relmc fit takes any)"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_posterior_whose_units_do_not_scale_is_refused_as_the_posteriors(tmp_path, capsys):
    # a fit of the BUGS pumps (per pump-hour) read back: every command names --posterior and
    # its units, as for --dataset, not a category field the user never wrote
    import relmc
    from relmc.errors import FieldError

    post = relmc.fit_conjugate(relmc.load_dataset("pumps"), seed=1)
    path = tmp_path / "pumps.nc"
    post.to_netcdf(path)
    toml = tmp_path / "job.toml"
    toml.write_text("[job]\ncompute_hours = 10.0\n")
    tail = "unit(s) pump do not scale with a cluster of GPUs; relmc {} needs units among gpu, "
    for argv in (["simulate", str(toml)], ["project"], ["optimize"]):
        out = tmp_path / "never"
        line = error_in_process([*argv, "--posterior", str(path), "--out", str(out)], capsys)
        assert line.startswith("relmc: error: --posterior: " + tail.format(argv[0])), line
        assert not out.exists()
    # from Python: named as the posterior's (the data's for from_counts), before any work
    for call, field in (
        (lambda: relmc.project(post, n_gpus=1024, n_trials=10), "posterior"),
        (lambda: relmc.FailureModel.from_posterior(post), "posterior"),
        (lambda: relmc.FailureModel.from_counts(relmc.load_dataset("pumps")), "data"),
    ):
        with pytest.raises(FieldError, match=f"^{field}: unit\\(s\\) pump do not scale") as e:
            call()
        assert e.value.field == field
    # negative control: a fit in GPU units passes the same check
    llama = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), seed=1)
    assert len(relmc.FailureModel.from_posterior(llama).categories) == 18


def test_pumps_project_subprocess(tmp_path):
    r = run("project", "--dataset", "pumps", "--out", "o", cwd=tmp_path)
    assert "--dataset pumps: unit(s) pump" in one_error_line(r)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------- help, words

ALL_HELP = [
    [],
    ["project"],
    ["fit"],
    ["simulate"],
    ["optimize"],
    ["compare"],
    ["datasets"],
    ["sweep"],
    ["sweep", "init"],
    ["sweep", "run"],
    ["sweep", "submit"],
    ["sweep", "status"],
    ["sweep", "open"],
    ["sweep", "pack"],
    ["examples"],
]


@pytest.mark.parametrize("cmd", ALL_HELP, ids=[" ".join(c) or "relmc" for c in ALL_HELP])
def test_help_has_examples_and_no_rest_markup(cmd, capsys):
    import re

    assert main([*cmd, "--help"]) == 0
    text = capsys.readouterr().out
    assert "examples" in text
    assert "``" not in text, text
    assert not re.search(r":[a-z]+:`", text), text
    assert not re.search(r"`[^`\s]+`", text), text


@pytest.mark.parametrize("cmd", ["project", "compare", "optimize"])
def test_scenario_flags_say_shared_paragraphs_once_and_offer_no_none(cmd, capsys):
    import re

    assert main([cmd, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse's wrapping undone
    # the spreads' paragraph in full once, then a pointer for each other spread
    assert text.count("Uncertain overheads, per draw") == 1
    for other in ("persist", "restart", "swap", "detection", "maintenance"):
        assert f"--{other}-spread X the same as --snapshot-spread, for the {other} overhead" in (
            text
        )
    assert text.count("Uncertain overheads, per event") == 1
    assert "--swap-jitter X the same as --restart-jitter, for the swap overhead" in text
    # the cluster's shape flags keep their own words (not taken for a spread)
    assert "--nodes-per-rack N the same as" not in text
    # a flag takes no None: the words a command line uses instead
    assert not re.search(r"\bNone\b", text)
    assert "unlimited (or none) for an unlimited pool" in text
    assert "not given (the default): off" in text


def test_a_whole_range_is_named_whichever_side_a_value_misses(capsys):
    from relmc.scenario import Category, FailureModel, Job, Policy

    one = (Category("a", rate=1e-4),)
    cases = [
        (lambda v: Job(start_day=v), (7, -1, 1.5), "job.start_day must be an integer in [0, 6]"),
        (lambda v: Policy(n_spares=v), (10**7 + 1, -1, "many"),
         "policy.n_spares must be an integer in [0, 1e7] or None (unlimited: in a TOML file, "
         "leave the field out)"),
        (lambda v: FailureModel(one, trend_shape=v), (101, 0, float("nan")),
         "failures.trend_shape must be a number in (0, 100]"),
    ]  # fmt: skip
    for build, values, text in cases:
        for v in values:
            with pytest.raises(ValueError) as e:
                build(v)
            assert str(e.value).startswith(text), str(e.value)
        build(values[0] - 1 if not isinstance(values[0], str) else 0)  # in range: no error
    # the flag's own words (no None, no TOML advice), whichever side a value misses
    for bad in ("lots", "-1", "10000001", "2.5"):
        line = error_in_process(["project", "--n-spares", bad], capsys)
        assert "--n-spares: must be an integer in [0, 1e7] or unlimited (also none, inf)" in line
    from relmc.cli.options import _spares

    assert [_spares(t) for t in ("1e7", "16_384", "0", "unlimited")] == [10**7, 16384, 0, None]


def test_a_section_that_is_not_a_table_is_named_as_one(tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text("cluster = 5\n")
    line = error_in_process(["simulate", str(toml), "--out", str(tmp_path / "o")], capsys)
    assert line.endswith("cluster must be a Cluster or a table of its fields ([cluster]); got 5")
    assert not (tmp_path / "o").exists()


SCRIPTS = ["quickstart.py", "what_if.py", "own_cluster.py", "event_log.py", "levers.py"]
SCRIPTS += ["time_varying.py"]
COPY = "'relmc examples --copy DIR'"  # how the installed example scripts are reached
SWEEP_SPEC = ["'relmc sweep init'", "relmc/templates/sweep.toml", COPY, "(sweep.toml)"]
#: what each command's --help points to: the package's templates, the installed examples
HELP_POINTS_TO = {
    (): [*SCRIPTS, COPY, "relmc simulate --init", "relmc sweep init", "relmc/templates/"],
    ("project",): ["quickstart.py", "own_cluster.py", "examples/my_cluster.csv", COPY],
    ("fit",): ["quickstart.py", "own_cluster.py", "event_log.py", COPY],
    ("simulate",): [
        COPY,
        "relmc simulate --init",
        "relmc/templates/scenario.toml",
        "examples/scenario.toml",
        "time_varying.py",
        "levers.py",
    ],
    ("optimize",): ["what_if.py", COPY],
    ("compare",): ["what_if.py", "levers.py", COPY],
    ("datasets",): ["quickstart.py", "own_cluster.py", COPY],
    ("examples",): ["relmc examples --copy", "quickstart.py"],
    **{
        ("sweep", *c): SWEEP_SPEC
        for c in [(), ("init",), ("run",), ("submit",), ("status",), ("pack",)]
    },
    ("sweep", "open"): SWEEP_SPEC,
}


def test_every_command_help_is_checked_for_its_examples():
    assert sorted(HELP_POINTS_TO) == sorted(tuple(c) for c in ALL_HELP)


@pytest.mark.parametrize(
    "cmd", list(HELP_POINTS_TO), ids=[" ".join(c) or "relmc" for c in HELP_POINTS_TO]
)
def test_help_points_to_the_templates_and_example_scripts(cmd, capsys):
    from pathlib import Path

    assert main([*cmd, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse may wrap anywhere
    for needle in HELP_POINTS_TO[cmd]:
        assert needle in text, (cmd, needle)
    # the files named exist: templates in the package, scripts in the repository
    root = Path(__file__).resolve().parents[1]
    for name in SCRIPTS:
        if name in text:
            assert (root / "examples" / name).is_file(), name
    for name in ("scenario.toml", "sweep.toml"):
        if f"relmc/templates/{name}" in text:
            assert (root / "relmc" / "templates" / name).is_file(), name
        if f"examples/{name}" in text:
            assert (root / "examples" / name).is_file(), name


def test_plain_removes_rest_markup():
    from relmc.cli.options import plain

    assert plain("see :func:`~relmc.sim.simulate` and :class:`relmc.Policy`") == (
        "see simulate and relmc.Policy"
    )
    assert plain("size (``W``) or `x`, 5%") == "size (W) or x, 5%"


def test_one_category_is_singular(tmp_path, capsys):
    assert main(["datasets"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "1 category, 3,613 events" in text and "18 categories, 419 events" in text
    assert "1 categories" not in text
    assert main(["fit", "--dataset", "rsc-1", "--seed", "1", "--out", str(tmp_path)]) == 0
    assert "rsc-1: 1 category, 3,613 events;" in capsys.readouterr().out


def test_project_restart_spread_widens_the_credible_band(tmp_path, capsys):
    # the CLI flag reaches the kernel: with restarts known only to a factor of 3 (90% range)
    # the credible interval of expected ETTR (posterior rates x the restart's uncertainty) is
    # wider than with a known restart. Known: ~0.01 wide at these sizes (rate uncertainty
    # alone); a lognormal restart of factor 3 moves per-draw ETTR by several times that.
    import json

    def band(*extra):
        out = tmp_path / f"p{len(extra)}"
        argv = ["project", "--n-gpus", "16384", "--compute-days", "10", "--n-trials", "512"]
        argv += ["--seed", "4", "--no-plot", "--quiet", "--out", str(out), "--json", "s.json"]
        assert main([*argv, *extra]) == 0
        doc = json.loads((out / "s.json").read_text())
        q = doc["coords"]["quantile"]
        values = doc["variables"]["ettr_credible"]["values"][0]
        return values[q.index(0.95)] - values[q.index(0.05)]

    known = band()
    assert band("--restart-spread", "3") > 2 * known
    capsys.readouterr()


def test_counts_errors_name_the_options(tmp_path, capsys, monkeypatch):
    # a counts CSV without exposure: the hint names the options, not the loader's arguments
    monkeypatch.chdir(tmp_path)
    mixed = "category,group,count,unit\nGPU,GPU,24,gpu\nHost,Host,10,node\n"
    (tmp_path / "c.csv").write_text(mixed)
    line = error_in_process(["fit", "--counts", "c.csv", "--out", "o"], capsys)
    assert "give both --observed-gpus and --observed-hours" in line, line
    # exposure given, units mixed, no window: the hierarchical model needs its length
    (tmp_path / "e.csv").write_text(
        "category,group,count,unit,exposure\nGPU,GPU,24,gpu,2949120\nHost,Host,10,node,368640\n"
    )
    argv = ["fit", "--counts", "e.csv", "--model", "hierarchical", "--out", "o"]
    line = error_in_process(argv, capsys)
    assert "--observed-hours: the hierarchical model pools" in line, line
    assert not (tmp_path / "o").exists()
    # negative control: one unit needs no window; and --quiet silences PyMC's sampler
    # lines too (its logger writes to the process's stderr, so a subprocess shows them)
    (tmp_path / "g.csv").write_text("category,group,count,unit,exposure\nGPU,GPU,24,gpu,2949120\n")
    argv = ["fit", "--counts", "g.csv", "--model", "hierarchical", "--n-draws", "100"]
    for quiet in (True, False):
        r = run(*argv, "--seed", "1", "--out", f"o{quiet}", *(["--quiet"] if quiet else []),
                "--n-tune", "150", cwd=tmp_path)  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert ("NUTS" in r.stderr) is not quiet, r.stderr
    assert "Sampling 4 chains for 150 tune and 100 draw iterations" in r.stderr  # --n-tune
    # the conjugate model has no tuning: --n-tune is refused before anything is written
    line = error_in_process(["fit", "--counts", "g.csv", "--n-tune", "5", "--out", "c"], capsys)
    assert "--n-tune: the conjugate model draws its posterior exactly" in line, line
    assert not (tmp_path / "c").exists()


def test_optimize_csv_labels_its_search_curve_readably(tmp_path, capsys):
    argv = ["optimize", *SMALL, "--n-trials", "40", "--intervals", "0.3,0.6,2", "--csv", "-"]
    assert main([*argv, "--quiet", "--out", str(tmp_path / "o")]) == 0
    rows = _csv_rows(capsys.readouterr().out)
    curve = [k for k in rows[0] if k.startswith("ettr_mean[")]
    with xr.open_dataset(tmp_path / "o" / "optimize.nc", engine="h5netcdf") as ds:
        # one column per searched interval, named to 6 significant digits (not 17)
        assert curve == [f"ettr_mean[{t:.6g}]" for t in ds["interval"].values]
        assert len(set(curve)) == ds.sizes["interval"]
        got = [float(rows[0][k]) for k in curve]
        assert got == ds["ettr_mean"].values.tolist()


# ------------------------------------------------------------------------------------- fleets

FLEET_BAD = [
    (["--fleet-sigma", "2"], "--fleet-sigma goes with --fleet"),
    (["--fleet", "nope"], "'nope' is not a bundled dataset"),
    (["--fleet", "t.csv"], "nor CSV:GPUS:HOURS"),
    (["--fleet", "t.csv:8x:10"], "GPUS must be an integer"),
    (["--fleet", "missing.csv:10:10"], "--fleet missing.csv:10:10: file not found"),
    (["--fleet", "rsc-1", "--fleet", "rsc-1"], "the fleet 'rsc-1' is given twice"),
    (["--fleet", "rsc-1", "--model", "hierarchical"], "--model: not with --fleet"),
    (["--fleet", "rsc-1", "--events", "e.csv"], "--fleet: not with --events"),
    (["--fleet", "two.csv:10:10"], "--fleet: "),  # a total-only fleet has one category
]


@pytest.mark.parametrize(("argv", "text"), FLEET_BAD, ids=[" ".join(a) for a, _ in FLEET_BAD])
def test_fit_fleets_bad_input(argv, text, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("category,count,unit\nall,12,node\n")
    (tmp_path / "two.csv").write_text("category,count,unit\na,12,node\nb,3,node\n")
    if "--events" in argv:
        argv = [*argv, "--observed-gpus", "16", "--window-end", "10"]
    line = error_in_process(["fit", *argv, "--out", "never"], capsys)
    assert text in line, line
    assert not (tmp_path / "never").exists()


def test_fit_several_fleets(tmp_path, capsys, monkeypatch):
    # Llama 3's categories with total-only fleets: Meta RSC-2 and RSC-1 (bundled), and a
    # counts CSV of one row with RSC-2's numbers (666 node failures in 6,830,175 node-hours,
    # 8,000 GPUs, 8,035.5 hours), so it and RSC-2 should get one multiplier within the
    # Monte Carlo error of the fit (the negative control: RSC-1's, whose failure rate per
    # node-hour is 2.8x RSC-2's, lies outside RSC-2's interval)
    # (its folder has a colon in its name: the size and window are read from the right)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d:x").mkdir()
    (tmp_path / "d:x" / "r2.csv").write_text("category,count,exposure,unit\nall,666,6830175,node\n")
    out = tmp_path / "o"
    argv = ["fit", "--fleet", "rsc-2", "--fleet", "d:x/r2.csv:8000:8035.5", "--fleet", "rsc-1"]
    argv += ["--json", "s.json"]
    argv += ["--seed", "1", "--n-draws", "300", "--n-tune", "300", "--n-chains", "2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # r_hat of a short run
        assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "fleets model (PyMC; with rsc-2, d:x/r2.csv:8000:8035.5, rsc-1)" in text
    with xr.open_datatree(out / "posterior.nc", engine="h5netcdf") as tree:
        post = tree["posterior"].to_dataset()
        assert post["fleet"].values.tolist() == ["llama3-405b", "rsc-2", "r2", "rsc-1"]
        assert post.attrs["model"] == "fleets"
        mult = post["fleet_multiplier"].quantile([0.05, 0.5, 0.95], dim=("chain", "draw"))
    for name in ("rsc-2", "r2", "rsc-1"):
        lo, med, hi = mult.sel(fleet=name).values
        assert f"{name}  " in text and f"{med:.3g} [{lo:.3g}, {hi:.3g}]" in text
    rsc2, r2, rsc1 = (mult.sel(fleet=n).values for n in ("rsc-2", "r2", "rsc-1"))
    assert r2[0] < rsc2[1] < r2[2] and rsc2[0] < r2[1] < rsc2[2]
    assert not rsc2[0] < rsc1[1] < rsc2[2]
    assert "the rates above are a new fleet's" in text
    # the summary holds the multipliers too
    doc = json.loads((out / "s.json").read_text())
    assert doc["coords"]["fleet"] == ["llama3-405b", "rsc-2", "r2", "rsc-1"]
    got = doc["variables"]["fleet_multiplier_quantile"]
    assert got["dims"] == ["fleet", "quantile"]
    np.testing.assert_allclose(got["values"], mult.transpose("fleet", "quantile").values)


def test_fit_prints_the_planned_maintenance_it_records(tmp_path, capsys):
    # one line: the count over the window and the rate the posterior records (which
    # projections take), "none recorded" without a count, and no line where the data has no
    # window (pumps)
    (tmp_path / "c.csv").write_text("category,count,unit\ngpu,12,gpu\nnet,3,node\n")
    counts = ["fit", "--counts", str(tmp_path / "c.csv"), "--observed-gpus", "1024",
              "--observed-hours", "500", "--seed", "1"]  # fmt: skip

    def planned(argv, out):
        assert main([*argv, "--out", str(tmp_path / out)]) == 0
        lines = [s for s in capsys.readouterr().out.splitlines() if "planned maintenance" in s]
        assert len(lines) <= 1, lines
        return lines[0] if lines else ""

    line = planned([*counts, "--observed-maintenance", "20"], "a")
    assert line.startswith("planned maintenance recorded: 20 in 500 h, 0.04 per wall-clock hour")
    assert (
        ", one every 25.0 h; simulations of this posterior (relmc project, simulate, compare, "
        "optimize, sweeps) run it unless the scenario sets maintenance_rate"
    ) in line
    line = planned([*counts, "--observed-maintenance", "0"], "b")
    assert line.startswith("planned maintenance recorded: 0 in 500 h, 0 per wall-clock hour;")
    assert "run none unless the scenario sets maintenance_rate" in line
    line = planned(counts, "c")
    assert line.startswith("planned maintenance: none recorded, so simulations of this posterior")
    assert "--observed-maintenance N records" in line
    line = planned(["fit", "--dataset", "llama3-405b", "--seed", "1"], "d")
    assert line.startswith("planned maintenance recorded: 47 in 1,296 h, 0.03627 per")
    assert planned(["fit", "--dataset", "pumps", "--seed", "1"], "e") == ""
    # on the exposed clock the rate is per exposed hour, as the rates are (the API's data)
    from relmc import fit_conjugate, load_counts
    from relmc.cli.fit import maintenance_text

    rows = {"category": ["gpu"], "count": [12], "unit": ["gpu"]}
    for clock, word in (("exposed", "per exposed hour"), ("wall", "per wall-clock hour")):
        data = load_counts(rows, n_gpus=64, duration_hours=400, exposure_clock=clock,
                           maintenance_count=8)  # fmt: skip
        post = fit_conjugate(data, n_draws=10, seed=1).posterior
        assert f"8 in 400 h, 0.02 {word}, one every 50.0 h" in maintenance_text(post, data)


def test_fit_records_the_observed_planned_maintenance(tmp_path):
    # --observed-maintenance N with --counts (and --observed-hours) or --events: the posterior
    # records N / window hours, which projections from it take; without it, none
    import arviz as az

    from relmc import FailureModel

    (tmp_path / "c.csv").write_text("category,count,unit\ngpu,12,gpu\nnet,3,node\n")
    (tmp_path / "e.csv").write_text("time,category\n1.0,gpu\n5.0,net\n")
    c, e = str(tmp_path / "c.csv"), str(tmp_path / "e.csv")
    counts = ["fit", "--counts", c, "--observed-gpus", "1024", "--observed-hours", "500"]
    events = ["fit", "--events", e, "--observed-gpus", "64", "--window-end", "100"]
    for argv, out, rate in ((counts, "a", 20 / 500), (events, "b", 20 / 100)):
        assert main([*argv, "--observed-maintenance", "20", "--seed", "1", "--quiet",
                     "--out", str(tmp_path / out)]) == 0  # fmt: skip
        post = az.from_netcdf(str(tmp_path / out / "posterior.nc"))
        assert FailureModel.from_posterior(post).maintenance_rate == rate
    assert main([*counts, "--seed", "1", "--quiet", "--out", str(tmp_path / "c")]) == 0
    post = az.from_netcdf(str(tmp_path / "c" / "posterior.nc"))
    assert FailureModel.from_posterior(post).maintenance_rate == 0.0  # negative control
    # one line each, before any work: without --counts, without the window, with --posterior
    line = one_error_line(run("fit", "--observed-maintenance", "3", cwd=tmp_path))
    assert "the bundled llama3-405b records its own planned interruptions (47)" in line
    # a bundled dataset that records none takes it over its window (rsc-1: 8,035.5 h)
    assert main(["fit", "--dataset", "rsc-1", "--observed-maintenance", "3", "--seed", "1",
                 "--quiet", "--out", str(tmp_path / "r")]) == 0  # fmt: skip
    post = az.from_netcdf(str(tmp_path / "r" / "posterior.nc"))
    assert FailureModel.from_posterior(post).maintenance_rate == 3 / 8035.5
    line = one_error_line(run("fit", "--dataset", "pumps", "--observed-maintenance", "3",
                              cwd=tmp_path))  # fmt: skip
    assert "--dataset pumps records no window length" in line
    (tmp_path / "x.csv").write_text("category,count,exposure,unit\ngpu,12,500000,gpu\n")
    line = one_error_line(run("fit", "--counts", "x.csv", "--observed-maintenance", "3",
                              cwd=tmp_path))  # fmt: skip
    assert "--observed-maintenance: needs --observed-hours" in line
    line = one_error_line(run("project", "--posterior", tmp_path / "a" / "posterior.nc",
                              "--observed-maintenance", "3", cwd=tmp_path))  # fmt: skip
    assert "--observed-maintenance: a fit option" in line
    line = one_error_line(run("fit", *counts[1:], "--observed-maintenance", "-1", cwd=tmp_path))
    assert "--observed-maintenance" in line and ">= 0" in line
    line = one_error_line(run("fit", *counts[1:], "--observed-maintenance", str(2**53 + 1),
                              cwd=tmp_path))  # fmt: skip
    assert "--observed-maintenance: must be a whole number in [0, 2**53]" in line


@pytest.mark.parametrize(
    ("fraction", "shown"),
    [
        (1.0, "100%"),
        (0.0, "0%"),
        (0.998, "99.8%"),
        (0.9996, "99.9%"),
        (0.0004, "0.1%"),
        (0.5, "50.0%"),
    ],
)
def test_compare_finished_column_says_all_or_none_only_when_so(fraction, shown):
    # 99.8 % of trials finished printed as "100%" (no decimals): a fraction short of 1 (or
    # above 0) now never rounds to it
    from relmc.cli.compare import finished_percent

    assert finished_percent(fraction) == shown


SCENARIO_FILE = """\
[policy]
restart_hours = 0.5
checkpoint_retention = 3

[[failures.categories]]
name = "Faulty GPU"
diurnal_amplitude = 0.4
diurnal_peak_hour = 15

[[failures.categories]]
name = "Silent Data Corruption"
kind = "sdc"
sdc_latency_hours = 2.0

[[failures.categories]]
name = "Straggler"
kind = "straggler"
rate = 2.0e-5
unit = "node"
straggler_speed = 0.5
detection_hours = 1.0
recovery = "swap"
"""


def _fields(sc: dict, name: str) -> dict:
    return next(c for c in sc["failures"]["categories"] if c["name"] == name)


def test_project_compare_optimize_take_a_scenario_file(tmp_path, capsys):
    """``--scenario TOML``: per-category fields and new straggler / SDC categories from the
    command line, layered on the data's default scenario; options override the file.

    ``relmc project --scenario F --keep-trials`` equals the API's projection of the same
    scenario built by hand (every trial's ETTR bit for bit); ``compare`` and ``optimize``
    record the file's scenario. Negative control: without the file, the ETTR differs.
    """
    import dataclasses

    import relmc
    from relmc.projection import default_scenario
    from relmc.scenario import Category, replace_path

    f = tmp_path / "s.toml"
    f.write_text(SCENARIO_FILE)
    argv = ["project", *SMALL, "--n-trials", "200", "--credible-trials", "0", "--keep-trials"]
    argv += ["--no-plot", "--swap-minutes", "6"]
    assert main([*argv, "--scenario", str(f), "--out", str(tmp_path / "a")]) == 0
    text = capsys.readouterr().out
    assert f"scenario file: {f} (failures, policy)" in text
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    with (
        xr.open_dataset(tmp_path / "a" / "projection.nc", engine="h5netcdf") as a,
        xr.open_dataset(tmp_path / "b" / "projection.nc", engine="h5netcdf") as b,
    ):
        sc = json.loads(a.attrs["scenario"])
        assert sc["policy"]["restart_hours"] == 0.5 and sc["policy"]["swap_hours"] == 0.1
        assert _fields(sc, "Faulty GPU")["diurnal_amplitude"] == 0.4
        assert _fields(sc, "Silent Data Corruption")["kind"] == "sdc"
        assert _fields(sc, "Straggler")["straggler_speed"] == 0.5
        ettr_file, ettr_none = a["ettr"].values, b["ettr"].values
    assert not np.array_equal(ettr_file, ettr_none)
    import arviz as az

    posterior = az.from_netcdf(str(tmp_path / "a" / "posterior.nc"))
    by_hand = default_scenario(posterior, relmc.load_dataset("llama3-405b"))
    by_hand = replace_path(by_hand, "job.compute_hours", 5 * 24.0)
    for path, value in (
        ("policy.restart_hours", 0.5),
        ("policy.checkpoint_retention", 3),
        ("policy.swap_hours", 0.1),
        ("failures.categories.Faulty GPU.diurnal_amplitude", 0.4),
        ("failures.categories.Faulty GPU.diurnal_peak_hour", 15.0),
        ("failures.categories.Silent Data Corruption.kind", "sdc"),
        ("failures.categories.Silent Data Corruption.sdc_latency_hours", 2.0),
    ):
        by_hand = replace_path(by_hand, path, value)
    slow = Category(
        "Straggler", rate=2e-5, unit="node", kind="straggler", straggler_speed=0.5,
        detection_hours=1.0, recovery="swap",
    )  # fmt: skip
    fm = by_hand.failures
    by_hand = dataclasses.replace(
        by_hand, failures=dataclasses.replace(fm, categories=(*fm.categories, slow))
    )
    api = relmc.project(
        posterior, n_gpus=[2048], scenario=by_hand, n_trials=200, seed=1,
        keep_trials=True, credible_trials=0,
    )  # fmt: skip
    np.testing.assert_array_equal(api["ettr"].values, ettr_file)
    # compare and optimize: the file under every policy, the options over it
    out = tmp_path / "c"
    argv = ["compare", *SMALL, "--n-trials", "50", "--scenario", str(f), "--out", str(out)]
    assert main([*argv, "--policy", "r2:restart_minutes=2"]) == 0
    capsys.readouterr()
    with xr.open_dataset(out / "compare.nc", engine="h5netcdf") as ds:
        scs = json.loads(ds.attrs["scenarios"])
    assert scs["baseline"]["policy"]["restart_hours"] == 0.5
    assert abs(scs["r2"]["policy"]["restart_hours"] - 2 / 60) < 1e-12
    assert all(_fields(s, "Straggler")["kind"] == "straggler" for s in scs.values())
    argv = ["optimize", *SMALL, "--n-trials", "20", "--scenario", str(f)]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    assert "scenario file:" in capsys.readouterr().out


def test_the_options_override_a_scenario_file_and_the_assumed_line_knows_it(tmp_path, capsys):
    # the file's restart under --restart-minutes 5: the option's; the "assumed:" line names
    # the defaults neither gave (the restart not, once the file sets it, even to the default
    # value; negative control: without the file it is named)
    from relmc.scenario import Policy

    f = tmp_path / "s.toml"
    f.write_text(f"[policy]\nrestart_hours = {Policy().restart_hours!r}\n")
    argv = ["project", *SMALL, "--n-trials", "20", "--credible-trials", "0", "--no-plot"]
    out = str(tmp_path / "a")
    assert main([*argv, "--scenario", str(f), "--restart-minutes", "5", "--out", out]) == 0
    assert main([*argv, "--scenario", str(f), "--out", str(tmp_path / "b")]) == 0
    with_file = capsys.readouterr().err
    assert main([*argv, "--out", str(tmp_path / "c")]) == 0
    without = capsys.readouterr().err
    with xr.open_dataset(tmp_path / "a" / "projection.nc", engine="h5netcdf") as ds:
        assert json.loads(ds.attrs["scenario"])["policy"]["restart_hours"] == 5 / 60
    assumed = [line for line in with_file.splitlines() if line.startswith("assumed:")]
    assert assumed and "restart" not in assumed[-1] and "checkpoint interval" in assumed[-1]
    assert "restart 10 min" in without


SCENARIO_FILE_BAD = [
    ("[cluster]\nn_gpus = 4096\n", "cluster.n_gpus: the sizes are --n-gpus's"),
    ("[clusters]\nn_gpus = 4096\n", "unknown tables ['clusters']"),
    ("[policy]\nrestart_hours = -1\n", "policy.restart_hours"),
    ("[policy]\nrestart_hour = 1\n", "did you mean 'restart_hours'"),
    ('[[failures.categories]]\nname = "Faulty GPU"\nrate = 1.0\n', "rate_multiplier"),
    ('[[failures.categories]]\nname = "Faulty GPUs"\ndetection_hours = 1.0\n', "Faulty GPU"),
]


@pytest.mark.parametrize(("text", "says"), SCENARIO_FILE_BAD)
def test_a_bad_scenario_file_is_named_before_any_fit(text, says, tmp_path, capsys, monkeypatch):
    # each command refuses it in one line naming the file and the field, writing nothing
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text(text)
    for command in ("project", "compare", "optimize"):
        argv = [command, *SMALL, "--scenario", "bad.toml", "--out", "never"]
        argv += ["--policy", "r:restart_minutes=2"] if command == "compare" else []
        line = error_in_process(argv, capsys)
        assert "bad.toml" in line and says in line, (command, line)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_compare_names_the_policies_on_another_kernel_path(tmp_path, capsys):
    # a daily cycle takes the diurnal path, a shorter restart the baseline's renewal path:
    # the note names the first only (its trials pair by posterior draw only), and
    # compare.nc records each path. Negative control: with no such policy, no note.
    out = tmp_path / "c"
    argv = ["compare", *SMALL, "--n-trials", "50", "--out", str(out)]
    assert main([*argv, "--policy", "day:failures.categories.*.diurnal_amplitude=0.2",
                 "--policy", "r2:restart_minutes=2"]) == 0  # fmt: skip
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and notes[0].startswith("note: day ran on another simulation path")
    assert "r2" not in notes[0] and "(diurnal against renewal)" in notes[0]
    with xr.open_dataset(out / "compare.nc", engine="h5netcdf") as ds:
        assert ds["kernel_path"].values.tolist() == ["renewal", "diurnal", "renewal"]
    assert main([*argv[:-1], str(tmp_path / "d"), "--policy", "r2:restart_minutes=2"]) == 0
    assert "note:" not in capsys.readouterr().out
