"""The relmc command: the main job end to end, the other subcommands, help and bad input."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
import warnings

import arviz as az
import numpy as np
import pytest
import xarray as xr
from clirun import one_error_line, run_cli

from relmc.cli import main
from relmc.cli.output import fmt

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def run(*args, cwd):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, "-m", "relmc", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_main_job_end_to_end(tmp_path):
    r = run("project", "--n-gpus", "2048,16384", "--n-trials", "200", "--out", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = tmp_path / "out"
    for name in ("projection.nc", "posterior.nc", "projection.png"):
        assert (out / name).is_file(), name
        assert f"wrote {os.path.join('out', name)}" in r.stdout
    assert not list(out.glob(".tmp-*"))  # no half-written files left behind
    assert (out / "projection.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with xr.open_dataset(out / "projection.nc", engine="h5netcdf") as ds:
        assert ds["n_gpus"].values.tolist() == [2048, 16384]
        assert ds["mttf_hours_quantile"].dims == ("n_gpus", "quantile")
        assert ds["lost_hours_quantile"].dims == ("n_gpus", "cause", "quantile")
        assert ds.attrs["n_trials"] == 200
        # the table's 16k MTTF median is the file's
        med = float(ds["mttf_hours_quantile"].sel(n_gpus=16384, quantile=0.5))
    assert f"{med:.2f} [" in r.stdout
    post = az.from_netcdf(str(out / "posterior.nc"))
    assert post.posterior["rate"].dims == ("chain", "draw", "category")
    assert "seed" in r.stdout and "ETTR" in r.stdout


def test_datasets(capsys):
    assert main(["datasets"]) == 0
    text = capsys.readouterr().out
    for name in ("llama3-405b", "pumps", "rsc-1", "rsc-2"):
        assert name in text
    assert main(["datasets", "llama3-405b"]) == 0
    text = capsys.readouterr().out
    assert "arXiv:2407.21783" in text and "Faulty GPU" in text and "148" in text
    assert "planned interruptions" in text
    # the category table: names left-aligned, counts and exposures right-aligned (the last
    # column's numbers end together)
    lines = text.splitlines()
    dash = next(k for k, s in enumerate(lines) if s.startswith("-----"))
    rows = lines[dash + 1 : dash + 19]
    assert rows[0].startswith("Faulty GPU ") and rows[0].split()[-2:] == ["148", "2.123e+07"]
    assert len({len(r) for r in rows}) == 1, rows  # right-aligned exposures: one line length
    count_ends = {len(r[: -len(r.split()[-1])].rstrip()) for r in rows}
    assert len(count_ends) == 1, rows  # right-aligned counts end in one column


def test_fit(tmp_path, capsys):
    assert main(["fit", "--seed", "1", "--out", str(tmp_path / "f")]) == 0
    text = capsys.readouterr().out
    assert "Faulty GPU" in text and "job MTTF at 16,384 GPUs" in text
    lines = text.splitlines()
    # the rate table's category column is left-aligned (its other columns right-aligned)
    assert any(s.startswith("Faulty GPU  ") for s in lines)
    # the MTTF line's interruptions per day are 24 h over its median MTTF (both printed to
    # about 3 significant figures: within 1 %)
    mttf = next(s for s in lines if s.startswith("job MTTF at 16,384 GPUs"))
    # both are medians, and say so (the table's hours between are means)
    assert "posterior median: " in mttf and mttf.endswith("interruptions per day (median)")
    assert "mean per unit-year" in text and "h between (1/mean)" in text
    med = float(mttf.split(": ")[1].split(" h ")[0])
    per_day = float(mttf.split("]; ")[1].split()[0])
    assert per_day == pytest.approx(24.0 / med, rel=0.01), mttf
    # and its clock: Llama 3's counts are over a wall-clock window
    assert lines[lines.index(mttf) + 1].startswith("(per wall-clock hour of the observation")
    post = az.from_netcdf(str(tmp_path / "f" / "posterior.nc"))
    # 4 chains x 1,000 draws, as the API (4,000 exact draws in all)
    assert (post.posterior.sizes["chain"], post.posterior.sizes["draw"]) == (4, 1000)


def test_fit_says_which_clock_its_mttf_is_on():
    from relmc.cli.fit import clock_note

    def rate(**attrs):
        return xr.DataArray(np.ones(2), dims="category", attrs=attrs)

    assert "observation window" in clock_note(rate(exposure_clock="wall", n_gpus=16384))
    assert "the exposed clock" in clock_note(rate(exposure_clock="exposed", n_gpus=16384))
    # counts without an observed size: no conversion, and the note says so
    assert "as they are" in clock_note(rate(exposure_clock="wall", n_gpus=0))
    assert "as they are" in clock_note(rate())


SMALL_TOML = """\
[cluster]
n_gpus = 4096
[job]
compute_hours = 100
[policy]
checkpoint_interval = "daly"
restart_hours = 0.1
"""


def _run_simulate(tmp_path, text: str, capsys, *extra: str, n_trials: int = 300, seed: int = 2):
    """``relmc simulate`` of a scenario TOML ``text`` (``extra``: more options), in
    ``tmp_path``: its exit status, its output folder and what it printed."""
    tmp_path.mkdir(exist_ok=True)
    toml = tmp_path / "s.toml"
    toml.write_text(text)
    out = tmp_path / "sim"
    argv = ["simulate", str(toml), *extra, "--n-trials", str(n_trials), "--seed", str(seed)]
    return main([*argv, "--out", str(out)]), out, capsys.readouterr()


def _simulate_toml(tmp_path, text: str, capsys, n_trials: int = 300, seed: int = 2):
    """``relmc simulate`` that succeeds: its output folder and its report."""
    rc, out, printed = _run_simulate(tmp_path, text, capsys, n_trials=n_trials, seed=seed)
    assert rc == 0, printed.err
    return out, printed.out


def test_simulate_names_the_file_of_a_bad_field(tmp_path, capsys):
    # a bad value or an unknown field in a scenario TOML: the one error line names the file
    # first, then the field (it named the field alone); nothing is written
    for text, field in (
        (SMALL_TOML.replace("restart_hours = 0.1", "restart_hours = -1"), "restart_hours"),
        (SMALL_TOML + "checkpoint_intervall = 0.5\n", "checkpoint_intervall"),
    ):
        rc, out, printed = _run_simulate(tmp_path, text, capsys)
        assert rc == 2 and not out.exists()
        line = printed.err.strip()
        assert line.startswith(f"relmc: error: {tmp_path / 's.toml'}: ") and field in line, line


def test_simulate(tmp_path, capsys):
    out, text = _simulate_toml(tmp_path, SMALL_TOML, capsys)
    assert "ETTR mean" in text and "4,096 GPUs" in text
    with xr.open_dataset(out / "simulation.nc", engine="h5netcdf") as ds:
        assert ds.sizes["trial"] == 300
        assert int(ds["n_gpus"]) == 4096
        wall = ds["wall_hours"].values
        ettr = ds["progress_hours"].values / wall
        lost = ds["lost_hours"].mean("trial")
        mean_wall = float(wall.mean())
    # the report's numbers are the file's: ETTR's mean, and each cause's mean lost hours with
    # its share of the mean wall time in percent
    assert f"ETTR mean {ettr.mean():.4f} +- {ettr.std(ddof=1) / np.sqrt(300):.4f} (MC SE)" in text
    lines = text.splitlines()
    head = lines.index(next(s for s in lines if s.startswith("lost to")))
    rows = {s.split()[0]: s.split()[1:] for s in lines[head + 2 : head + 2 + lost.sizes["cause"]]}
    assert list(rows) == [str(c) for c in lost["cause"].values]
    for c in lost["cause"].values:
        v = float(lost.sel(cause=c))
        assert rows[str(c)] == [fmt(v), f"{100 * v / mean_wall:.2f}%"], c
    assert float(lost.sel(cause="rework")) > 0  # a share that is not 0 is checked


PHYSICS_TOML = (
    SMALL_TOML
    + """\
checkpoint_retention = 2
[[failures.categories]]
name = "crash"
rate = 2e-6
[[failures.categories]]
name = "slow node"
rate = 2e-6
kind = "straggler"
detection_hours = 0.5
[[failures.categories]]
name = "corruption"
rate = 4e-6
kind = "sdc"
sdc_latency_hours = 3.0
"""
)


def test_simulate_reports_stragglers_and_sdc_as_the_file_has_them(tmp_path, capsys):
    out, text = _simulate_toml(tmp_path, PHYSICS_TOML, capsys, seed=3)
    line = next(s for s in text.splitlines() if s.startswith("stragglers per job"))
    with xr.open_dataset(out / "simulation.nc", engine="h5netcdf") as ds:
        n = ds["interruptions"].mean("trial")
        means = {k: float(ds[k].mean()) for k in ("sdc_from_scratch", "sdc_rollbacks")}
        means["sdc_undetected"] = float(ds["sdc_undetected"].mean())
        means["sdc_rework_hours"] = float(ds["sdc_rework_hours"].mean())
        rework = float(ds["lost_hours"].sel(cause="rework").mean())
    expect = (
        f"stragglers per job (mean): {fmt(float(n.sel(category='slow node')))} slow-downs; "
        f"silent data corruption per job (mean): {fmt(float(n.sel(category='corruption')))} "
        f"detected, {fmt(means['sdc_from_scratch'])} rolled back to the beginning, "
        f"{fmt(means['sdc_rollbacks'])} kept checkpoints skipped over, "
        f"{fmt(means['sdc_undetected'])} still latent at the end, "
        f"{fmt(means['sdc_rework_hours'])} h of rework from rollbacks"
    )
    assert line == expect
    # 3 h latency past 2 kept half-hourly checkpoints: every detected SDC skips some
    assert means["sdc_rollbacks"] > 0 and float(n.sel(category="corruption")) > 0
    # the rollbacks' rework is a part of the rework, not all of it (failures have theirs)
    assert 0 < means["sdc_rework_hours"] < rework


def test_simulate_without_stragglers_or_sdc_prints_no_such_line(tmp_path, capsys):
    _, text = _simulate_toml(tmp_path, SMALL_TOML, capsys, n_trials=50, seed=3)
    assert "ETTR mean" in text and "stragglers" not in text and "corruption" not in text


@pytest.fixture(scope="module")
def llama3_posterior(tmp_path_factory):
    """``relmc fit``'s posterior of the bundled Llama 3 counts (conjugate: a few seconds)."""
    out = tmp_path_factory.mktemp("fit")
    assert main(["fit", "--seed", "1", "--quiet", "--out", str(out)]) == 0
    return out / "posterior.nc"


def _simulate_with(tmp_path, toml_text, posterior, capsys):
    """``relmc simulate --posterior``: its exit status, its netCDF and its stderr."""
    extra = ("--posterior", str(posterior), "--quiet")
    rc, out, printed = _run_simulate(tmp_path, toml_text, capsys, *extra, n_trials=60, seed=4)
    return rc, out / "simulation.nc", printed.err


def test_simulate_with_a_posterior_adds_straggler_and_sdc_categories(
    tmp_path, capsys, llama3_posterior
):
    fit = az.from_netcdf(str(llama3_posterior)).posterior
    names = [str(c) for c in fit["category"].values]
    # without [failures]: the fit's categories, and the planned maintenance its data recorded
    rc, nc, err = _simulate_with(tmp_path, SMALL_TOML, llama3_posterior, capsys)
    assert rc == 0, err
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert [str(c) for c in ds["category"].values] == names
        assert float(ds["maintenance_events"].mean()) > 0
        rate = json.loads(ds.attrs["scenario"])["failures"]["maintenance_rate"]
        assert rate == pytest.approx(47 / 1296, rel=1e-12)  # Llama 3's window's record
    # a [failures] without tables: the fit's categories, its maintenance_rate in place of the
    # record's (the help says so)
    off = SMALL_TOML + "[failures]\nmaintenance_rate = 0.0\n"
    rc, nc, err = _simulate_with(tmp_path / "m", off, llama3_posterior, capsys)
    assert rc == 0, err
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert [str(c) for c in ds["category"].values] == names
        assert float(ds["maintenance_events"].max()) == 0.0
        assert json.loads(ds.attrs["scenario"])["failures"]["maintenance_rate"] == 0.0
    # a [failures] of straggler and SDC tables only: added after the fit's, its other
    # fields applied (no maintenance here)
    extra = (
        "[failures]\nmaintenance_rate = 0.0\n"
        + PHYSICS_TOML[PHYSICS_TOML.index('[[failures.categories]]\nname = "slow node"') :]
    )
    rc, nc, err = _simulate_with(tmp_path / "b", SMALL_TOML + extra, llama3_posterior, capsys)
    assert rc == 0, err
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert [str(c) for c in ds["category"].values] == [*names, "slow node", "corruption"]
        assert float(ds["maintenance_events"].max()) == 0.0
        assert float(ds["interruptions"].sel(category="slow node").sum()) > 0
        assert "slow node" in ds.attrs["rates_source"]


def test_simulate_with_a_posterior_changes_a_fit_category_named_in_the_toml(
    tmp_path, capsys, llama3_posterior
):
    # Llama 3's SDC made latent (4 h, two kept checkpoints) from the command line: the table
    # names the fit's category, whose fields it replaces; the rate stays the posterior's
    latent = (
        '[[failures.categories]]\nname = "Silent Data Corruption"\nkind = "sdc"\n'
        "sdc_latency_hours = 4.0\n"
    )
    # 16,384 GPUs for 500 h: about 2.3 SDC a job at Llama 3's rate, each found after the two
    # kept half-hourly checkpoints were taken: back to the start
    big = "[cluster]\nn_gpus = 16384\n[job]\ncompute_hours = 500\n"
    toml = big + "[policy]\ncheckpoint_retention = 2\n" + latent
    rc, nc, err = _simulate_with(tmp_path, toml, llama3_posterior, capsys)
    assert rc == 0, err
    fit = az.from_netcdf(str(llama3_posterior)).posterior
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert [str(c) for c in ds["category"].values] == [str(c) for c in fit["category"].values]
        sc = json.loads(ds.attrs["scenario"])
        kinds = {c["name"]: c.get("kind", "failure") for c in sc["failures"]["categories"]}
        assert kinds["Silent Data Corruption"] == "sdc"
        assert sum(k == "sdc" for k in kinds.values()) == 1
        assert float(ds["maintenance_events"].mean()) > 0  # the fit's maintenance kept
        assert float(ds["sdc_from_scratch"].mean()) > 1.0
    # negative control: without the table the category is a failure, nothing rolls back
    rc, nc, err = _simulate_with(tmp_path / "b", big, llama3_posterior, capsys)
    assert rc == 0, err
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert float(ds["sdc_from_scratch"].sum()) == 0
        sc = json.loads(ds.attrs["scenario"])
        assert {c["kind"] for c in sc["failures"]["categories"]} == {"failure"}


def test_simulate_with_a_posterior_refuses_a_rate_it_would_replace(
    tmp_path, capsys, llama3_posterior
):
    # a fit category's rate is the posterior's: a rate in its table is refused (it would be
    # ignored), and rate_multiplier is named; negative control: the multiplier is taken
    table = '[[failures.categories]]\nname = "Faulty GPU"\n'
    rc, nc, err = _simulate_with(tmp_path, SMALL_TOML + table + "rate = 1e-3\n", llama3_posterior,
                                 capsys)  # fmt: skip
    assert rc == 2 and not nc.exists()
    assert "failures.categories['Faulty GPU'].rate" in err and "rate_multiplier" in err, err
    rc, nc, err = _simulate_with(
        tmp_path / "b", SMALL_TOML + table + "rate_multiplier = 3.0\n", llama3_posterior, capsys
    )
    assert rc == 0, err
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        sc = json.loads(ds.attrs["scenario"])
        mult = {c["name"]: c["rate_multiplier"] for c in sc["failures"]["categories"]}
        assert mult["Faulty GPU"] == 3.0 and sum(m != 1.0 for m in mult.values()) == 1


def test_simulate_with_a_posterior_refuses_failure_categories_it_lacks(
    tmp_path, capsys, llama3_posterior
):
    # negative control: a failure category is not added to the fit (no posterior rate would
    # meet it): named, with the fit's categories, before anything runs
    rc, nc, err = _simulate_with(tmp_path, PHYSICS_TOML, llama3_posterior, capsys)
    assert rc == 2 and not nc.exists()
    assert err.startswith("relmc: error: failures.categories['crash']: the fit has no "), err
    assert "the fit's categories: 'Faulty GPU'" in err
    # a misspelt fit category: the closest name is suggested (case, then similarity)
    assert "no category 'crash'. A table naming a fit category changes it" in err
    assert "without [[failures.categories]] tables the fit's categories are simulated" in err
    for typo, meant in (("faulty gpu", "Faulty GPU"), ("Faulty GPUs", "Faulty GPU")):
        toml = SMALL_TOML + f'[[failures.categories]]\nname = "{typo}"\nrate_multiplier = 2\n'
        rc, nc, err = _simulate_with(tmp_path, toml, llama3_posterior, capsys)
        assert rc == 2 and f"no category {typo!r}; did you mean {meant!r}?" in err, err


def test_optimize(tmp_path, capsys):
    args = ["optimize", "--n-gpus", "4096", "--compute-hours", "100", "--n-trials", "100"]
    args += ["--intervals", "0.3,0.6,1.2", "--seed", "1", "--out", str(tmp_path / "o")]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "young" in text and "daly" in text and "optimum" in text
    rows = {
        s.split()[0]: s
        for s in text.splitlines()
        if s.split()[:1] in (["optimum"], ["young"], ["daly"], ["scenario"])
    }
    assert rows["optimum"].endswith("  -")  # no gain over itself
    for rule in ("young", "daly", "scenario"):  # each rule's gain and its SE
        assert rows[rule].count(" +- ") == 2 and rows[rule].split()[-3][0] in "+-", rows[rule]
    with xr.open_dataset(tmp_path / "o" / "optimize.nc", engine="h5netcdf") as ds:
        assert ds["rule"].values.tolist() == ["optimum", "young", "daly", "scenario"]


BAD = [
    (["project", "--n-gpus", "0,2048"], "--n-gpus"),
    (["project", "--n-gpus", "abc"], "--n-gpus"),
    (["project", "--restart-minutes", "-5"], "restart"),
    (["project", "--checkpoint-interval", "fast"], "--checkpoint-interval"),
    (["project", "--checkpoint-interval", "0.1", "--persist-hours", "0.2"], "persist_hours"),
    (["project", "--dataset", "nope"], "--dataset"),
    (["project", "--counts", "missing.csv"], "--counts"),
    (["project", "--n-trials", "0"], "--n-trials"),
    (["project", "--n-trials", "200000000"], "[1, 1e8]"),
    (["project", "--n-spares", "-1"], "--n-spares"),
    (["project", "--compute-days", "0"], "compute_hours"),
    (["fit", "--model", "foo"], "--model"),
    (["optimize", "--intervals", "0,1"], "intervals"),
    (["simulate", "missing.toml"], "scenario"),
    (["datasets", "nope"], "name"),
]


@pytest.mark.parametrize(("argv", "field"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_one_line_exit_2_no_files(argv, field, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "never"
    extra = [] if argv[0] == "datasets" else ["--out", str(out)]
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("relmc: error: ") and field in lines[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_the_parsers_limits_are_the_apis():
    from relmc.cli.options import MAX_GPUS, MAX_TRIALS
    from relmc.scenario import Cluster
    from relmc.sim.simulate import MAX_TRIALS as API_MAX_TRIALS

    assert MAX_TRIALS == API_MAX_TRIALS
    assert Cluster(n_gpus=MAX_GPUS).n_gpus == MAX_GPUS
    with pytest.raises(ValueError, match=r"cluster.n_gpus must be an integer in \[1, 1e8\]"):
        Cluster(n_gpus=MAX_GPUS + 1)


def test_bad_files(tmp_path, capsys):
    toml = tmp_path / "bad.toml"
    toml.write_text("[policy]\nrestart_hours = -1\n")
    assert main(["simulate", str(toml), "--out", str(tmp_path / "o")]) == 2
    assert "policy.restart_hours" in capsys.readouterr().err
    toml.write_text("[policy\n")
    assert main(["simulate", str(toml), "--out", str(tmp_path / "o")]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    csv = tmp_path / "c.csv"
    csv.write_text("category,count,exposure,unit\nx,-1,10,gpu\n")
    assert main(["fit", "--counts", str(csv), "--out", str(tmp_path / "o")]) == 2
    assert "count" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_bad_input_subprocess_has_no_traceback(tmp_path):
    r = run("project", "--n-gpus", "2048,1000000000", "--out", "x", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        # the flag is found from the FieldError's field, as for every other option
        "relmc: error: n_gpus must be an integer in [1, 1e8]; got 1000000000 (option --n-gpus)"
    ]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "cmd",
    [[], ["project"], ["fit"], ["simulate"], ["optimize"], ["datasets"], ["sweep"], ["examples"]],
)
def test_help(cmd, capsys):
    assert main([*cmd, "--help"]) == 0
    text = capsys.readouterr().out
    assert "usage:" in text
    if cmd and cmd[0] != "sweep":
        assert "examples:" in text


def test_policy_options_follow_the_dataclass(capsys):
    import dataclasses

    from relmc.scenario import Policy

    assert main(["project", "--help"]) == 0
    text = capsys.readouterr().out
    for f in dataclasses.fields(Policy):
        assert "--" + f.name.replace("_", "-") in text, f.name
    assert "--restart-minutes" in text and "--snapshot-minutes" in text


@pytest.mark.parametrize(("option", "lo"), [("--credible-trials", 0), ("--trials-per-draw", 2)])
def test_project_count_options_take_their_whole_range(option, lo, capsys):
    """``relmc project``'s credible-simulation counts: every integer in [lo, 1e8] parses, one
    past either end is refused naming the option and the range (parsing only, no run)."""
    from relmc.cli import build_parser

    parser = build_parser()
    dest = option[2:].replace("-", "_")
    for ok in (lo, 10**8):
        assert getattr(parser.parse_args(["project", option, str(ok)]), dest) == ok
    for bad in (lo - 1, 10**8 + 1):
        with pytest.raises(SystemExit):
            parser.parse_args(["project", option, str(bad)])
        err = capsys.readouterr().err
        assert option in err and f"must be an integer in [{lo}, 1e8]" in err, err


def test_unwritable_out_fails_before_any_work(capsys):
    # /proc accepts no new directories, even for root
    assert main(["project", "--out", "/proc/relmc-out", "--n-trials", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "fitting" not in err[0]


# ---------------------------------------------------------------------------------- one handler


def run_patched(prelude: str, *args, cwd):
    return run_cli(*args, cwd=cwd, prelude=prelude)


# an OSError while writing the result (e.g. a full or read-only disk): one line, exit 2
FAILED_WRITE = """\
import relmc.cli.{module} as m
def boom(obj, path):
    raise PermissionError(13, "Permission denied", str(path))
m.write_netcdf = boom
"""


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        ("fit", ["fit", "--seed", "1"]),
        ("simulate", ["simulate", "s.toml", "--n-trials", "50", "--seed", "1"]),
    ],
)
def test_os_error_is_one_line(module, argv, tmp_path):
    (tmp_path / "s.toml").write_text(SMALL_TOML)
    r = run_patched(FAILED_WRITE.format(module=module), *argv, "--out", "o", cwd=tmp_path)
    line = one_error_line(r)
    assert "Permission denied" in line and ".nc" in line


def test_unwritable_out_subprocess(tmp_path):
    (tmp_path / "a-file").write_text("")
    for argv in (["project"], ["fit"], ["optimize"], ["simulate", "s.toml"]):
        r = run(*argv, "--out", "a-file/sub", cwd=tmp_path)
        assert "--out" in one_error_line(r), argv


def test_missing_plot_extra_names_it(tmp_path):
    """Without matplotlib, `relmc project` still writes its netCDF and says what to install."""
    # arviz imports part of matplotlib itself, so block only what relmc.plots imports
    r = run_patched(
        "import arviz\nsys.modules['matplotlib.figure'] = None",
        *("project", "--n-gpus", "2048", "--n-trials", "20", "--seed", "1", "--out", "o"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    warn = [line for line in r.stderr.splitlines() if line.startswith("relmc: warning:")]
    assert len(warn) == 1 and 'pip install "relmc[plot]"' in warn[0], r.stderr
    assert (tmp_path / "o" / "projection.nc").is_file()
    assert not (tmp_path / "o" / "projection.png").exists()
    assert not list((tmp_path / "o").glob(".tmp-*"))


def test_missing_extra_in_the_handler(tmp_path):
    """Any ImportError of an optional module reaching the handler names its extra."""
    prelude = """\
import relmc.cli.datasets as m
def boom(args):
    import matplotlib.pyplot  # noqa: F401
m.run = boom
sys.modules['matplotlib.pyplot'] = None
"""
    line = one_error_line(run_patched(prelude, "datasets", cwd=tmp_path))
    assert 'pip install "relmc[plot]"' in line


def test_closed_pipe_is_quiet(tmp_path):
    # the reader is gone before relmc writes anything: every write fails with EPIPE
    p = subprocess.Popen(
        [sys.executable, "-m", "relmc", "datasets"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdout.close()
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait(timeout=120) == 1
    assert err == ""
    # and the shell form: the reader leaves after 10 bytes
    r = subprocess.run(
        f"{sys.executable} -m relmc datasets 2>err.txt | head -c 10",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.stdout == "llama3-405"
    assert (tmp_path / "err.txt").read_text() == ""


# ---------------------------------------------------------------------------------- blame


def test_field_error_names_the_flag_that_set_it(tmp_path):
    r = run("project", "--restart-minutes", "-1", "--out", "o", cwd=tmp_path)
    line = one_error_line(r)
    # a value given in minutes is named as given beside the hours it became
    assert "policy.restart_hours" in line and "got -0.01666" in line
    assert line.endswith("(option --restart-minutes -1)")
    r = run("optimize", "--restart-hours", "-1", "--out", "o", cwd=tmp_path)
    assert one_error_line(r).endswith("(option --restart-hours)")
    line = one_error_line(run("project", "--compute-days", "-1.5", "--out", "o", cwd=tmp_path))
    assert "got -36.0" in line and line.endswith("(option --compute-days -1.5)")
    assert not (tmp_path / "o").exists()


def test_a_policy_field_given_in_minutes_is_named_as_given(tmp_path):
    r = run("compare", "--policy", "a:restart_minutes=-2", "--n-trials", "2", cwd=tmp_path)
    line = one_error_line(r)
    assert "policy.restart_hours" in line and line.endswith("(given as restart_minutes=-2)")
    r = run("compare", "--policy", "a:restart_hours=-2", "--n-trials", "2", cwd=tmp_path)
    assert "given as" not in one_error_line(r)  # negative control: given in the field's unit
    assert not (tmp_path / "relmc-output").exists()


def test_field_error_from_a_file_names_no_flag(tmp_path):
    toml = tmp_path / "bad.toml"
    toml.write_text("[policy]\nrestart_hours = -1\n")
    line = one_error_line(run("simulate", "bad.toml", "--out", "o", cwd=tmp_path))
    assert "policy.restart_hours" in line and "(option" not in line
    # a plain ValueError gets no flag either
    line = one_error_line(run("project", "--counts", "missing.csv", "--out", "o", cwd=tmp_path))
    assert "--counts" in line and "(option" not in line


# ---------------------------------------------------------------------------------- atomic writes


def test_atomic_path_failure_keeps_the_old_file(tmp_path):
    from relmc._io import atomic_path

    path = tmp_path / "result.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="mid-write"), atomic_path(path) as tmp:
        tmp.write_text("half of the new cont")
        raise RuntimeError("killed mid-write")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["result.txt"]  # no temporary left
    with atomic_path(path) as tmp:
        assert tmp.parent == path.parent and tmp.suffix == ".txt"
        tmp.write_text("new")
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["result.txt"]


def test_write_netcdf_failure_keeps_the_old_file(tmp_path):
    import numpy as np

    from relmc._io import write_netcdf

    path = tmp_path / "out.nc"
    old = xr.Dataset({"x": ("i", np.arange(3.0))})
    write_netcdf(old, path)
    before = path.read_bytes()
    # the second variable cannot be encoded: the write fails after the file was started
    bad = xr.Dataset({"a": ("i", np.arange(3.0)), "z": ("i", np.array([1, "b", None], object))})
    with pytest.raises((TypeError, ValueError)):
        write_netcdf(bad, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["out.nc"]
    # InferenceData goes through the same path
    idata = az.from_dict(posterior={"rate": np.ones((1, 4))})
    write_netcdf(idata, tmp_path / "post.nc")
    assert az.from_netcdf(str(tmp_path / "post.nc")).posterior["rate"].shape == (1, 4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.nc", "post.nc"]


def test_project_report_holds_the_files_numbers(tmp_path, capsys):
    """``relmc project``'s printed report, line by line, against what it wrote (in-process).

    The header lines name the fit (18 categories, 419 events, 4 x 1,000 = 4,000 draws) and the
    default policy in minutes (30-min interval, 1-min blocking snapshot, 10-min restart); each
    size's row holds the projection's medians and 5-95% bands as the file has them (MTTF,
    interruptions per day for one job and their expected value, ETTR likewise to three
    decimals) and the two largest mean lost-time shares in percent; the last column is
    left-aligned, the others right-aligned; the ``assumed:`` line on stderr gives the default
    overheads in minutes. In-process, so the report's code is the one this test session
    imports (the subprocess test above runs what ``python -m relmc`` imports from its folder).
    """
    from relmc.cli.output import NOISY_CREDIBLE, band

    out = tmp_path / "p"
    args = ["project", "--n-gpus", "2048,16384", "--n-trials", "200", "--seed", "3"]
    t0 = time.perf_counter()
    assert main([*args, "--out", str(out)]) == 0
    elapsed = time.perf_counter() - t0
    cap = capsys.readouterr()
    lines = cap.out.splitlines()
    done = [s for s in lines if s.startswith("done in ")]  # the run's own time, in seconds
    assert len(done) == 1 and 0.0 <= float(done[0].split()[2]) <= elapsed + 0.05, done
    assert lines[0].endswith("18 categories, 419 events; conjugate Gamma-Poisson, 4000 draws")
    assert lines[1].startswith(
        "policy: checkpoint every 30 min (1 min blocking), restart 10 min, unlimited spares, "
    )
    head = next(k for k, s in enumerate(lines) if s.lstrip().startswith("GPUs"))
    header = lines[head]
    names = ["GPUs", "MTTF h", "interruptions/day (job)", "E[interruptions/day]"]
    names += ["ETTR (job)", "E[ETTR]", "top lost time (% of wall)"]
    assert [c.strip() for c in header.split("  ") if c.strip()] == names
    dashes = lines[head + 1].split("  ")
    assert len(dashes) == len(names) and all(set(d) == {"-"} for d in dashes)
    widths = [len(d) for d in dashes]
    rows = lines[head + 2 : head + 4]
    with xr.open_dataset(out / "projection.nc", engine="h5netcdf") as ds:
        # the fit's rates are per wall-clock hour of the observed window, the job exposed
        # 99.4 % of it under this run's overheads: the line that says so
        exposed = float(ds["exposed_fraction_mean"].values.ravel()[0])
        assert 0.9 < exposed < 1.0
        assert sum(f"divided by the share {exposed:.3g} of it" in s for s in lines) == 1
        for n, row in zip((2048, 16384), rows, strict=True):
            r = ds.sel(n_gpus=n)
            lost = r["lost_fraction_mean"]
            top = np.argsort(-lost.values)[:2]
            causes = [str(lost["cause"].values[i]).replace("_", " ") for i in top]
            # an E[...] band whose per-draw means are mostly noise is starred
            star = {
                v: " *" if float(r[f"{v}_credible_noise"]) > NOISY_CREDIBLE else ""
                for v in ("interruptions_per_day", "ettr")
            }
            want = [
                f"{n:,}",
                band(r["mttf_hours_quantile"]),
                band(r["interruptions_per_day_quantile"]),
                band(r["interruptions_per_day_credible"]) + star["interruptions_per_day"],
                band(r["ettr_quantile"], lambda x: f"{x:.3f}"),
                band(r["ettr_credible"], lambda x: f"{x:.3f}") + star["ettr"],
                ", ".join(
                    f"{c} {100 * float(lost.values[i]):.1f}%"
                    for c, i in zip(causes, top, strict=True)
                ),
            ]
            # columns of the dashes' widths, two spaces apart: right-aligned but the last
            cells = [c.rjust(w) for c, w in zip(want[:-1], widths[:-1], strict=True)]
            assert row == "  ".join([*cells, want[-1].ljust(widths[-1])]).rstrip(), (row, want)
            assert float(r["mttf_hours_quantile"].sel(quantile=0.5)) > 0  # a real band
            assert fmt(float(r["mttf_hours_quantile"].sel(quantile=0.5))) in row
    assumed = [s for s in cap.err.splitlines() if s.startswith("assumed: ")]
    assert len(assumed) == 1
    for part in ("restart 10 min", "checkpoint interval 30 min", "blocking snapshot 1 min"):
        assert part in assumed[0], part


def test_simulate_notes_kept_checkpoints_shorter_than_an_sdc_latency(tmp_path, capsys):
    # 2 kept half-hourly checkpoints (1 min snapshots) span 1.03 h < a 4-h latency: noted,
    # and indeed every corruption found rolls back to the beginning
    sdc = (
        '[[failures.categories]]\nname = "crash"\nrate = 1e-6\n'
        '[[failures.categories]]\nname = "sdc"\nrate = 2e-6\nkind = "sdc"\n'
        "sdc_latency_hours = 4.0\n"
    )
    base = "[cluster]\nn_gpus = 4096\n[job]\ncompute_hours = 100\n"
    for keep, noted in ((2, True), (0, False), (12, False)):
        toml = base + f"[policy]\ncheckpoint_retention = {keep}\n[failures]\n" + sdc
        out, text = _simulate_toml(tmp_path / str(keep), toml, capsys, n_trials=200)
        assert ("note: the 2 kept checkpoints span about 1.03 wall hours" in text) is noted, text
        with xr.open_dataset(out / "simulation.nc", engine="h5netcdf") as ds:
            found = float(ds["interruptions"].sel(category="sdc").sum())
            scratch = float(ds["sdc_from_scratch"].sum())
            assert found > 20
            assert (scratch == found) is noted


# --------------------------------------------------------------------------------------------
# --posterior: project, compare and optimize from a fit's netCDF, without fitting again

POSTERIOR_RUNS = {
    "project": ["project", "--n-gpus", "4096,16384", "--n-trials", "200", "--no-plot"],
    "compare": ["compare", "--n-gpus", "4096", "--n-trials", "200",
                "--policy", "a:restart_minutes=2"],
    "optimize": ["optimize", "--n-gpus", "4096", "--compute-days", "5", "--n-trials", "60",
                 "--intervals", "0.3,0.6,1.2"],
}  # fmt: skip
POSTERIOR_FILES = {"project": "projection.nc", "compare": "compare.nc", "optimize": "optimize.nc"}


@pytest.mark.parametrize("command", list(POSTERIOR_RUNS))
def test_posterior_is_the_fit_it_came_from(command, tmp_path, capsys, llama3_posterior):
    # the fixture is 'relmc fit --seed 1'; each command with --seed 1 fits the same posterior
    # itself, so reading it instead gives the same results, bit for bit
    argv = [*POSTERIOR_RUNS[command], "--seed", "1", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "fitted")]) == 0
    assert main([*argv, "--posterior", str(llama3_posterior), "--out", str(tmp_path / "read")]) == 0
    name = POSTERIOR_FILES[command]
    with (
        xr.open_dataset(tmp_path / "fitted" / name, engine="h5netcdf") as a,
        xr.open_dataset(tmp_path / "read" / name, engine="h5netcdf") as b,
    ):
        for v in a.data_vars:
            np.testing.assert_array_equal(a[v].values, b[v].values, err_msg=v)
    # with --posterior nothing is fitted or written back (no posterior.nc of its own)
    assert not (tmp_path / "read" / "posterior.nc").exists()
    capsys.readouterr()
    # negative control: another fit's posterior gives other numbers
    other = tmp_path / "fit2"
    assert main(["fit", "--seed", "2", "--quiet", "--out", str(other)]) == 0
    argv2 = [*argv, "--posterior", str(other / "posterior.nc"), "--out", str(tmp_path / "other")]
    assert main(argv2) == 0
    with (
        xr.open_dataset(tmp_path / "fitted" / name, engine="h5netcdf") as a,
        xr.open_dataset(tmp_path / "other" / name, engine="h5netcdf") as c,
    ):
        first = next(v for v in a.data_vars if v.startswith("ettr") or v == "rule_ettr_mean")
        assert not np.array_equal(a[first].values, c[first].values)


@pytest.mark.parametrize(
    ("extra", "text"),
    [
        (["--observed-gpus", "2048"], "--observed-gpus: a fit option"),
        (["--model", "hierarchical"], "--model: a fit option"),
        (["--n-draws", "50"], "--n-draws: a fit option"),
        (["--n-chains", "8"], "--n-chains: a fit option"),
        (["--n-tune", "8"], "--n-tune: a fit option"),
        (["--model", "conjugate"], "--model: a fit option"),  # given, even as the default
        (["--dataset", "rsc-1"], "not allowed with argument"),
    ],
)
def test_posterior_refuses_fit_options(extra, text, tmp_path, capsys, llama3_posterior):
    argv = ["project", "--posterior", str(llama3_posterior), *extra, "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert text in err, err
    assert not (tmp_path / "o").exists()


def test_project_leaves_the_posterior_it_reads_untouched(tmp_path, capsys):
    # README's recipe: fit, then project from its posterior.nc into the same folder
    out = tmp_path / "relmc-output"
    assert main(["fit", "--seed", "1", "--quiet", "--out", str(out)]) == 0
    before = (out / "posterior.nc").read_bytes()
    argv = ["project", "--posterior", str(out / "posterior.nc"), "--n-gpus", "4096"]
    assert main([*argv, "--n-trials", "20", "--no-plot", "--quiet", "--out", str(out)]) == 0
    assert (out / "posterior.nc").read_bytes() == before
    assert (out / "projection.nc").is_file()


def test_posterior_without_units_is_refused(tmp_path, capsys, llama3_posterior):
    import arviz as az

    idata = az.from_netcdf(str(llama3_posterior))
    bare = az.InferenceData(posterior=idata.posterior.drop_vars("unit"))
    bare.to_netcdf(str(tmp_path / "bare.nc"))
    argv = ["optimize", "--posterior", str(tmp_path / "bare.nc"), "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    assert "needs a 'category' dim with a 'unit' coordinate" in capsys.readouterr().err


def test_posterior_missing_file_is_named(tmp_path, capsys):
    argv = ["compare", "--posterior", str(tmp_path / "nope.nc"), "--policy", "a:restart_minutes=2"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    assert "--posterior: no such file" in capsys.readouterr().err


def test_project_marks_credible_intervals_that_are_mostly_noise(tmp_path, capsys):
    # a 6-h job on 2,048 GPUs has ~0.25 interruptions: the per-draw means are nearly all
    # Monte Carlo noise (credible_noise ~1), and the table says so; negative control: a
    # 54-day job at 16,384 GPUs (hundreds of interruptions) is resolved, unmarked
    argv = ["project", "--n-gpus", "2048", "--n-trials", "200", "--seed", "4", "--no-plot"]
    assert main([*argv, "--compute-hours", "6", "--out", str(tmp_path / "a")]) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(tmp_path / "a" / "projection.nc", engine="h5netcdf") as ds:
        assert float(ds["ettr_credible_noise"].max()) > 0.5
    assert " *" in text and "* not resolved: Monte Carlo noise is" in text
    assert "raise --trials-per-draw and --credible-trials together" in text
    # 200 credible trials of 4 a draw: 50 posterior draws, rough 5% and 95% quantiles, said
    # so; 100 draws (the threshold) are not
    assert "E[...] from 50 posterior draws only" in text
    more = ["--credible-trials", "400", "--compute-hours", "6", "--out", str(tmp_path / "c")]
    assert main([*argv, *more]) == 0
    assert "posterior draws only" not in capsys.readouterr().out
    argv = ["project", "--n-gpus", "16384", "--n-trials", "300", "--seed", "4", "--no-plot"]
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(tmp_path / "b" / "projection.nc", engine="h5netcdf") as ds:
        assert float(ds["ettr_credible_noise"].max()) < 0.5
    assert "not resolved" not in text


def test_simulate_warns_of_fields_a_category_kind_does_not_read(tmp_path, capsys):
    toml = (
        "[job]\ncompute_hours = 20\n[failures]\n"
        '[[failures.categories]]\nname = "corruption"\nrate = 1e-6\nsdc_latency_hours = 3.0\n'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # as a user's interpreter: shown, not raised
        rc, _, printed = _run_simulate(tmp_path / "a", toml, capsys, n_trials=20, seed=2)
    assert rc == 0
    warned = "relmc: warning: failures.categories['corruption'] sets sdc_latency_hours"
    assert warned in printed.err and '(meant kind = "sdc"?)' in printed.err
    assert printed.err.count("does not read") == 1
    # negative control: with its kind, nothing to say
    rc, _, printed = _run_simulate(tmp_path / "b", toml + 'kind = "sdc"\n', capsys, n_trials=20)
    assert rc == 0 and "does not read" not in printed.err + printed.out


# --------------------------------------------------------------------------------------------
# relmc fit --events: the event model from the command line, and its posterior reused

EVENT_WINDOW = ["--observed-gpus", "16384", "--window-start", "2024-03-01T00:00:00",
                "--window-end", "2024-04-30T00:00:00"]  # fmt: skip


@pytest.mark.slow
def test_fit_events_then_project_with_its_physics(tmp_path, capsys):
    import warnings

    from relmc.events import load_events

    log = ROOT / "examples" / "event_log.csv"
    argv = ["fit", "--events", str(log), *EVENT_WINDOW, "--diurnal", "pooled", "--trend"]
    argv += ["--fleet-age-at-start-hours", "2000", "--n-draws", "200", "--n-chains", "2"]
    argv += ["--seed", "1"]
    with warnings.catch_warnings():  # short chains may warn of their convergence
        warnings.simplefilter("ignore")
        assert main([*argv, "--csv", "-", "--out", str(tmp_path / "fit")]) == 0
    printed = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(printed.out)))
    # the report (on stderr beside the CSV) gives the fitted terms' medians and bands
    post = az.from_netcdf(str(tmp_path / "fit" / "posterior.nc")).posterior
    b = np.quantile(post["trend_shape"].values, [0.05, 0.5, 0.95])
    assert f"trend shape {b[1]:.2f} [{b[0]:.2f}, {b[2]:.2f}]" in printed.err
    assert "daily cycle amplitude: " in printed.err and "lemon nodes" not in printed.err
    events = load_events(log, n_gpus=16384, start="2024-03-01T00:00:00",
                         end="2024-04-30T00:00:00")  # fmt: skip
    # the summary's counts are the log's, its rates the posterior's means
    assert [int(r["count"]) for r in rows] == events["count"].values.tolist()
    post = az.from_netcdf(str(tmp_path / "fit" / "posterior.nc")).posterior
    assert post.attrs["model"] == "events"
    assert {"trend_shape", "diurnal_amplitude"} <= set(post.data_vars)
    mean = post["rate"].mean(("chain", "draw"))
    assert [float(r["rate_mean"]) for r in rows] == pytest.approx(mean.values, rel=1e-12)
    # the posterior reused: the projection draws the fitted terms per trial
    argv = ["project", "--posterior", str(tmp_path / "fit" / "posterior.nc"), "--no-plot"]
    assert main([*argv, "--n-gpus", "4096", "--n-trials", "50", "--out", str(tmp_path / "p")]) == 0
    text = capsys.readouterr().out
    assert "events fit of event_log; diurnal=pooled, trend=power-law, nodes=none, per draw" in text
    with xr.open_dataset(tmp_path / "p" / "projection.nc", engine="h5netcdf") as ds:
        assert "physics per draw from the posterior" in ds.attrs["rates_source"]


EVENTS_TREND = ["--events", "x.csv", "--observed-gpus", "8", "--window-end", "10", "--trend"]


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["--events", "x.csv", "--window-end", "10"], "--observed-gpus: required with --events"),
        (["--events", "x.csv", "--observed-gpus", "8"], "--window-end: required with --events"),
        (["--events", "x.csv", "--counts", "c.csv"], "--counts: not with --events"),
        (["--events", "x.csv", "--model", "hierarchical"], "--model: not with --events"),
        (["--diurnal", "pooled"], "--diurnal goes with --events"),
        (["--trend"], "--trend goes with --events"),
        (["--start-hour", "0"], "--start-hour goes with --events"),  # 0 is given too
        (EVENTS_TREND, "--fleet-age-at-start-hours: required with --trend"),
        (["--fleet-age-at-start-hours", "5"], "--fleet-age-at-start-hours goes with --events"),
        # project's name for the age at the job's start is refused, naming fit's own
        (
            [*EVENTS_TREND, "--fleet-age-hours", "2000"],
            "--fleet-age-hours: relmc fit takes --fleet-age-at-start-hours",
        ),
    ],
)
def test_fit_events_options_are_checked_first(argv, text, tmp_path, capsys):
    assert main(["fit", *argv, "--out", str(tmp_path / "o")]) == 2
    assert text in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_simulate_posterior_tables_leave_the_assumed_line_whole(tmp_path, capsys, llama3_posterior):
    # a [[failures.categories]] table naming a fit category: the fit's maintenance fields
    # merged in are not the file's, so planned downtime is still reported as assumed
    table = '[[failures.categories]]\nname = "Faulty GPU"\nrate_multiplier = 1.0\n'
    for name, text in (("plain", SMALL_TOML), ("table", SMALL_TOML + table)):
        rc, _, printed = _run_simulate(
            tmp_path / name, text, capsys, "--posterior", str(llama3_posterior), n_trials=20
        )
        assert rc == 0, printed.err
        assumed = [s for s in printed.err.splitlines() if s.startswith("assumed: ")]
        assert len(assumed) == 1 and "planned downtime 0 min" in assumed[0], (name, assumed)


def test_fit_events_errors_name_the_window_options_only_when_about_the_window(tmp_path, capsys):
    log = tmp_path / "log.csv"
    argv = ["fit", "--events", str(log), "--observed-gpus", "64", "--out", str(tmp_path / "o")]
    hint = "(the window: --window-start, --window-end)"
    log.write_text("time,category\n1.5,GPU\n170,Host\n")  # past the window's end
    assert main([*argv, "--window-end", "100"]) == 2
    err = capsys.readouterr().err
    assert "got '170', 70 h after end" in err and err.rstrip().endswith(hint)
    log.write_text("time,category\n1.5,\n")  # a row without a category: not the window's
    assert main([*argv, "--window-end", "100"]) == 2
    err = capsys.readouterr().err
    assert "field 'category' is empty" in err and hint not in err
    # a folder named end/ in the path is no window error either (names, not words, decide)
    (tmp_path / "end").mkdir()
    other = tmp_path / "end" / "log.csv"
    other.write_text("time,kind\n1.5,GPU\n")
    assert main([*argv[:2], str(other), *argv[3:], "--window-end", "100"]) == 2
    err = capsys.readouterr().err
    assert "missing column(s) ['category']" in err and hint not in err
    # the window's own arguments are named as their options
    log.write_text("time,category\n2024-03-02T01:00:00,GPU\n")
    iso = ["--window-start", "2024-03-01T00:00:00", "--window-end", "2024-02-01T00:00:00"]
    assert main([*argv, *iso]) == 2
    assert "relmc: error: --window-end: end must be after start" in capsys.readouterr().err
    iso[3] = "2024-03-11T00:00:00"
    assert main([*argv, *iso, "--start-hour", "5"]) == 2
    assert "relmc: error: --start-hour: start_hour is only for times in hours" in (
        capsys.readouterr().err
    )
    # dates without clock times: the daily cycle is refused as the option that asked for it
    log.write_text("time,category\n2024-03-02,GPU\n2024-03-05,Host\n")
    window = ["--window-start", "2024-03-01T00:00:00", "--window-end", "2024-03-11T00:00:00"]
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main([*argv, *window, "--diurnal", "category"]) == 2
    err = capsys.readouterr().err
    assert "every event is at 00:00" in err  # the load's warning
    assert "relmc: error: --diurnal category: every one of the log's 2 events" in err
    assert "leave --diurnal out" in err
    assert not (tmp_path / "o").exists()


def test_fit_events_passes_n_tune(tmp_path, capsys, monkeypatch):
    """--n-tune reaches the event model (1,000, the API's, when not given)."""
    import relmc.models

    seen = []

    def fake(events, **kwargs):  # stands in for the sampler: only its arguments matter here
        seen.append(kwargs["n_tune"])
        raise ValueError("stop here")

    monkeypatch.setattr(relmc.models, "fit_events", fake)
    (tmp_path / "log.csv").write_text("time,category\n1.5,GPU\n7.25,Host\n")
    argv = ["fit", "--events", str(tmp_path / "log.csv"), "--observed-gpus", "64"]
    argv += ["--window-end", "100", "--out", str(tmp_path / "o")]
    assert main([*argv, "--n-tune", "77"]) == 2
    assert main(argv) == 2
    assert seen == [77, 1000]
    assert "stop here" in capsys.readouterr().err


def test_fit_events_nodes_need_a_node_column(tmp_path, capsys):
    (tmp_path / "log.csv").write_text("time,category\n1.5,GPU\n7.25,Host\n")
    argv = ["fit", "--events", str(tmp_path / "log.csv"), "--observed-gpus", "64"]
    argv += ["--window-end", "100", "--nodes", "mixture", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    assert "--nodes: needs an event log with a node column" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_fit_terms_text_is_empty_without_terms(llama3_posterior):
    from relmc.cli.fit import terms_text

    assert terms_text(az.from_netcdf(str(llama3_posterior)).posterior) == ""


def test_posterior_runs_say_what_recovery_each_category_got(tmp_path, capsys, llama3_posterior):
    argv = ["project", "--posterior", str(llama3_posterior), "--n-gpus", "4096"]
    assert main([*argv, "--n-trials", "20", "--no-plot", "--out", str(tmp_path / "p")]) == 0
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("recovery: "))
    # Llama 3 Table 5's rules: software and unknown causes restart, hardware swaps a node;
    # hangs are seen after the 10-minute NCCL timeout
    assert "node swap for Faulty GPU, GPU HBM3 Memory" in line
    assert "restart only for Software Bug" in line
    assert "NCCL Watchdog Timeouts (10.0 min)" in line and "Network Switch/Cable (10.0 min)" in line


def _fit_inputs(tmp_path):
    """A valid two-row counts CSV, a one-row fleet CSV and a two-event log, in ``tmp_path``."""
    ok = tmp_path / "ok.csv"
    ok.write_text("category,count,unit\nGPU,3,gpu\nNIC,2,node\n")
    fleet = tmp_path / "fleet1.csv"
    fleet.write_text("category,count,unit\nall,5,node\n")
    events = tmp_path / "evn.csv"
    events.write_text("time,category\n1,GPU\n5,NIC\n")
    return ok, fleet, events


COUNTS = ["--counts", "ok.csv", "--observed-gpus", "4096", "--observed-hours", "720"]
HUGE = "999999999999999999999"
#: relmc fit inputs beyond the arithmetic (audit item 1, 4, 9), and the flag each error names
FIT_BAD = [
    (["--counts", "ok.csv", "--observed-gpus", HUGE, "--observed-hours", "720"],
     "--observed-gpus"),
    (["--counts", "ok.csv", "--observed-gpus", "4096", "--observed-hours", "1e300"],
     "--observed-hours"),
    (["--events", "evn.csv", "--observed-gpus", HUGE, "--window-end", "10"], "--observed-gpus"),
    (["--events", "evn.csv", "--observed-gpus", "4096", "--window-end", "1e300"],
     "--window-end"),
    (["--events", "evn.csv", "--observed-gpus", "4096", "--window-end", "10", "--trend",
      "--fleet-age-at-start-hours", "1e300"], "--fleet-age-at-start-hours"),
    ([*COUNTS, "--fleet", f"fleet1.csv:{HUGE}:100"], "GPUS must be an integer in [1, 1e8]"),
    ([*COUNTS, "--fleet", "fleet1.csv:4096:1e300"], "HOURS must be a finite number in (0, 1e6]"),
    (["--counts", "ok.csv", "--observed-gpus", "4096", "--observed-hours", "1000001"],
     "--observed-hours: must be a finite number of hours in (0, 1e6]"),
    (["--events", "evn.csv", "--observed-gpus", "4096", "--window-end", "10", "--trend",
      "--fleet-age-at-start-hours", "10000001"], "in (0, 1e7]"),
    (["--fleet", "rsc-1", "--fleet-sigma", "1e300"], "--fleet-sigma"),
    (["--dataset", ""], "--dataset"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "needle"), FIT_BAD, ids=[" ".join(a) for a, _ in FIT_BAD])
def test_fit_refuses_inputs_beyond_the_arithmetic_before_any_work(
    argv, needle, tmp_path, capsys, monkeypatch
):
    """relmc fit refuses sizes, windows, ages and priors too large for the arithmetic.

    Each used to fit (or sample) and then fail with a traceback, an empty --out or a nonsense
    fit; now exit 2 with one line naming the option and the allowed range, before any fit
    (PyMC blocked: importing it would fail) and with no --out folder.
    """
    _fit_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "pymc", None)  # a fit would fail on importing it
    out = tmp_path / "never"
    assert main(["fit", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: "), err
    assert needle in err[0], err[0]
    assert not out.exists()


def test_fit_accepts_the_largest_observed_size_and_window(tmp_path, capsys, monkeypatch):
    """Negative control of the refusals above: 1e8 GPUs over 1e6 hours still fits (conjugate).

    The fit is exact and fast; its printed numbers are finite.
    """
    _fit_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = ["--counts", "ok.csv", "--observed-gpus", "100000000", "--observed-hours", "1e6"]
    assert main(["fit", *argv, "--n-draws", "50", "--seed", "1", "--out", "f"]) == 0
    text = capsys.readouterr().out
    assert "job MTTF at 100,000,000 GPUs" in text
    # as words: "maintenance" holds "nan"
    assert not re.search(r"\b(nan|inf)\b", text, re.IGNORECASE), text


def test_fit_parsers_limits_are_the_apis():
    """The parser's copies of the fit limits equal the library's (one GPU limit in all)."""
    from relmc import cluster
    from relmc.cli import fit, options
    from relmc.models import fleets

    assert options.MAX_GPUS is cluster.MAX_GPUS
    assert fit.MAX_FLEET_SIGMA == fleets.MAX_FLEET_SIGMA


def test_fmt_switches_to_scientific_only_for_extreme_magnitudes():
    """fmt prints 1e308 in a few characters; ordinary values exactly as before.

    An exposure of 1e308 printed a 300-digit MTTF; the plain forms below are unchanged.
    """
    assert fmt(1e308) == "1e+308" and fmt(-2.5e15) == "-2.5e+15"
    assert fmt(1.234e-5) == "1.23e-05"
    # negative control: ordinary values, the largest plain one included
    assert fmt(3.0937) == "3.09" and fmt(12.34) == "12.3" and fmt(123.4) == "123"
    assert fmt(1296.0) == "1,296" and fmt(0.5) == "0.5" and fmt(0.0) == "0"
    assert fmt(999_999_999_999.0) == "999,999,999,999"


def test_fit_help_names_means_and_medians(capsys):
    """relmc fit --help says which printed numbers are means and which medians.

    It called the hours-between column (1 / mean rate) a "contribution to the job MTTF" (a
    median of 1/Lambda), and gave a 90% interval per unit-year that the table does not print.
    """
    assert main(["fit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "contribution to the job MTTF" not in text
    assert "per unit-hour and per unit-year" not in text
    assert "1 / (the posterior mean of its rate on the cluster), from means" in text
    assert "the posterior median of 1/Lambda" in text


def test_optimize_needs_two_trials_as_compare_does(tmp_path, capsys):
    """``relmc optimize --n-trials 1`` is refused: one trial has no standard error.

    It printed ``rule_ettr_se`` and ``gain_se`` of 0.0 (false precision). Checks the option,
    :func:`relmc.optimize.optimize_checkpoint` (a ``FieldError`` on ``n_trials``, before any
    simulation) and that a standard error of one trial is NaN, never 0. Negative controls:
    two trials parse, and two values have a finite standard error.
    """
    import math

    from relmc.cli import build_parser
    from relmc.errors import FieldError
    from relmc.optimize import _se, optimize_checkpoint

    out = tmp_path / "o"
    assert main(["optimize", "--n-trials", "1", "--out", str(out)]) == 2
    assert "--n-trials" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(FieldError, match=r"n_trials must be >= 2") as e:
        optimize_checkpoint(None, n_trials=1)
    assert e.value.field == "n_trials"
    assert math.isnan(_se(np.array([0.9])))
    assert build_parser().parse_args(["optimize", "--n-trials", "2"]).n_trials == 2
    assert _se(np.array([0.9, 0.8])) == pytest.approx(0.05)


def test_positive_converters_without_an_upper_limit_name_their_range():
    """``positive_float``/``positive_hours`` (no upper limit) say "> 0"; with one, the range.

    The upper limit's text was formatted even without one (a TypeError that argparse
    reduced to "invalid number value").
    """
    import argparse

    from relmc.cli import options

    for conv, bad, want in (
        (options.positive_float, "-1", "must be a finite number > 0; got '-1'"),
        (options.positive_hours, "0", "must be a finite number of hours > 0; got '0'"),
        (options.positive_at_most(10.0), "11", r"must be a finite number in (0, 10]; got '11'"),
    ):
        with pytest.raises(argparse.ArgumentTypeError) as e:
            conv(bad)
        assert want in str(e.value), str(e.value)
    assert options.positive_float("2.5") == 2.5
