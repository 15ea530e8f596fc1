"""What users do with the command: compare, machine-readable summaries, sweep templates,
adaptive precision flags, their own counts, and the help text."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr

from relmc.cli import main

ENV = {**os.environ, "MPLBACKEND": "Agg"}
#: a small, fast job: 2,048 GPUs, 5 days of compute
SMALL = ["--n-gpus", "2048", "--compute-days", "5", "--seed", "1"]


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "relmc", *map(str, args)],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_error_line(r) -> str:
    """Exit 2, exactly one stderr line, no traceback: return that line."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("relmc: error: ")
    return lines[0]


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
    assert f"{med:.3f} [" in text and gain in text
    assert "fast: policy.restart_hours=0.03333" in text


def test_compare_baseline_option(tmp_path, capsys):
    argv = ["compare", *SMALL, "--n-trials", "50", "--out", str(tmp_path / "c")]
    argv += ["--policy", "fast:restart_minutes=2", "--baseline", "fast"]
    assert main(argv) == 0
    with xr.open_dataset(tmp_path / "c" / "compare.nc", engine="h5netcdf") as ds:
        assert ds.attrs["baseline"] == "fast"
        assert float(ds.gain_mean.sel(scenario="fast")) == 0.0


COMPARE_BAD = [
    ([], "--policy: give at least one policy"),
    (["--policy", "fast"], "--policy"),
    (["--policy", "fast:bogus=1"], "unknown field 'bogus'"),
    (["--policy", "fast:restart_minutes=-1"], "--policy fast: policy.restart_hours"),
    (["--policy", "a:restart_minutes=2", "--policy", "a:restart_minutes=3"], "used twice"),
    (["--policy", "baseline:restart_minutes=2"], "used twice"),
    (["--policy", "a:restart_minutes=2", "--baseline", "b"], "--baseline"),
    (["--policy", "a:failures.categories.nope.detection_hours=1"], "nope"),
    (["--policy", "a:restart_minutes=2", "--n-trials", "1"], "--n-trials"),
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
