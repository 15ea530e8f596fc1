"""Each example and the paper pipeline runs as a script (quick mode) and says what it did."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PAPER = ROOT / "paper"


def _run(args, cwd, timeout=300):
    env = {**os.environ, "RELMC_EXAMPLE_QUICK": "1", "MPLBACKEND": "Agg"}
    # -W error: warnings in an example are bugs too, as under pytest's filterwarnings, with
    # its one exception: arviz's once-a-day FutureWarning on import (a run that crosses
    # midnight, or the day's first import of arviz, would fail on it)
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-W", "ignore::FutureWarning:arviz", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _png(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_quickstart(tmp_path):
    out = _run([EXAMPLES / "quickstart.py"], tmp_path)
    rows = re.findall(r"^\s*([\d,]+) GPUs: MTTF\s+([\d.]+) h, ETTR ([\d.]+)$", out, re.M)
    assert [r[0] for r in rows] == ["2,048", "16,384", "131,072"]
    mttf = [float(r[1]) for r in rows]
    ettr = [float(r[2]) for r in rows]
    assert mttf == sorted(mttf, reverse=True) and ettr == sorted(ettr, reverse=True)
    # Llama 3 observed 1296 h / 419 = 3.09 h at 16,384 GPUs; the fit is to those counts
    assert 2.6 < mttf[1] < 3.6
    assert "wrote quickstart.png" in out
    _png(tmp_path / "quickstart.png")


def test_own_cluster(tmp_path):
    # run from the copy `relmc examples --copy` makes: it reads my_cluster.csv beside itself
    from clirun import run_cli

    assert run_cli("examples", "--copy", tmp_path / "mine").returncode == 0
    out = _run([tmp_path / "mine" / "own_cluster.py"], tmp_path)
    assert "my-cluster: 36 interruptions in 6 categories" in out
    rows = re.findall(
        r"^\s*([\d,]+) GPUs: MTTF .* ETTR ([\d.]+) \[([\d.]+), ([\d.]+)\]$", out, re.M
    )
    assert [r[0] for r in rows] == ["4,096", "32,768"]
    for _, med, lo, hi in rows:
        assert float(lo) <= float(med) <= float(hi)
    assert "wrote own_cluster.nc and own_cluster.png" in out
    _png(tmp_path / "own_cluster.png")
    import xarray as xr

    with xr.open_dataset(tmp_path / "own_cluster.nc") as ds:
        assert {"n_gpus", "quantile", "cause", "category"} <= set(ds.dims)


def test_own_cluster_runs_on_another_csv_size_and_window(tmp_path):
    """Categories of the user's own (none the script names) and their own size and window."""
    mine = tmp_path / "mine.csv"
    mine.write_text("category,count,unit\nGPU,9,gpu\nHost,3,node\nToR,1,rack\n")
    out = _run([EXAMPLES / "own_cluster.py", mine, 2048, 10], tmp_path)
    assert "mine: 13 interruptions in 3 categories on 2,048 GPUs over 10 days" in out
    rows = re.findall(r"^\s*([\d,]+) GPUs: MTTF", out, re.M)
    assert rows == ["2,048", "16,384"]  # the observed size and 8x, in quick mode
    assert "wrote own_cluster.nc and own_cluster.png" in out


def test_own_cluster_rejects_bad_csv(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("category,count,unit\nGPU,-1,gpu\n")
    env = {**os.environ, "RELMC_EXAMPLE_QUICK": "1"}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "own_cluster.py"), str(bad)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    assert "count" in proc.stderr and ">= 0" in proc.stderr
    assert not (tmp_path / "own_cluster.png").exists()


def test_what_if(tmp_path):
    out = _run([EXAMPLES / "what_if.py"], tmp_path)
    assert "ETTR at 100,000 GPUs" in out
    num = r"([+-]?[\d.]+)"
    rows = {
        m[0].strip(): [float(x) for x in m[1:]]
        for m in re.findall(
            rf"^(.{{40}}) +{num} \[{num}, {num}\] +{num} \[{num}, {num}\]$", out, re.M
        )
    }
    assert list(rows) == [
        "baseline: ckpt 30 min, restart 10 min",
        "restart 2 min",
        "ckpt every 5 min",
        "both",
    ]
    assert rows["baseline: ckpt 30 min, restart 10 min"][3:] == [0.0, 0.0, 0.0]
    # at 100k GPUs (MTTF ~0.5 h) both changes help, and together they help most
    gains = {k: v[3] for k, v in rows.items()}
    assert 0 < gains["restart 2 min"] < gains["both"]
    assert 0 < gains["ckpt every 5 min"] < gains["both"]
    for med, lo, hi, gmed, glo, ghi in rows.values():
        assert lo <= med <= hi and glo <= gmed <= ghi
    assert "wrote what_if.png" in out
    _png(tmp_path / "what_if.png")


@pytest.mark.slow
def test_paper_pipeline(tmp_path):
    res, figs = tmp_path / "results", tmp_path / "figures"
    out = _run([PAPER / "make_results.py", "--quick", "--out", res], tmp_path)
    assert out.count("wrote ") == 7 and not list(res.glob("*.part"))
    scripts = ("fig_rates", "fig_mttf", "fig_ettr", "fig_lost_hours", "fig_main", "fig_physics")
    for script in scripts:
        _run([PAPER / f"{script}.py", "--results", res, "--out", figs], tmp_path)
    for name in ("rates", "mttf", "ettr", "lost_hours", "main", "physics"):
        _png(figs / f"{name}.png")
    # the physics results pair every scenario's trials with the example's: its baseline is
    # examples/time_varying.py's "constant", and the gains the figure draws are per trial
    import xarray as xr

    with xr.open_dataset(res / "physics.nc") as ds:
        assert ds["scenario"].values[0] == "constant" and ds.sizes["scenario"] == 7
        assert ds["n_gpus"].values.tolist() == [16_384, 100_000]
        keep2 = ds["ettr"].sel(scenario="latent SDC (4 h, assumed), keep 2")
        assert float((keep2 - ds["ettr"].sel(scenario="constant")).median()) < -0.2
    table = _run([PAPER / "table_what_if.py", "--results", res, "--out", figs], tmp_path)
    assert "| ckpt 5 min + restart 2 min |" in table
    assert (figs / "what_if_100k.md").read_text() in table


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_examples_are_listed(script):
    assert script in {
        "quickstart.py",
        "own_cluster.py",
        "what_if.py",
        "time_varying.py",
        "levers.py",
        "event_log.py",
        "make_event_log.py",
        "uncertain_overheads.py",
        "fleets.py",
    }


@pytest.mark.slow
def test_fleets(tmp_path):
    # one PyMC fit of three fleets (~40-100 s in quick mode) and two projections; sigma and
    # the multipliers as the fit prints them
    out = _run([EXAMPLES / "fleets.py"], tmp_path, timeout=600)

    def band(text):
        med, lo, hi = (
            float(x) for x in re.match(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", text).groups()
        )
        return lo, med, hi

    mult = dict(re.findall(r"^  (rsc-\d): (.+)$", out, re.M))
    # per node-hour RSC-1 fails 2.8x as often as RSC-2, Llama 3 (per GPU) between them
    assert band(mult["rsc-1"])[0] > 1 > band(mult["rsc-2"])[2]
    rows = re.findall(
        r"^  (Llama 3 alone|a new fleet)\s+([\d,]+) GPUs: MTTF (.+?) h \[(.+?), (.+?)\]", out, re.M
    )
    width = {(who, n): float(hi) / float(lo) for who, n, _, lo, hi in rows}
    assert len(width) == 4
    for n in ("16,384", "100,000"):  # the fleets' spread dwarfs what Llama 3's counts leave
        assert width[("a new fleet", n)] > 5 * width[("Llama 3 alone", n)]


def test_event_log_csv_is_made_by_its_script(tmp_path):
    # the bundled synthetic log is what the committed script writes with its named seed
    out = _run([EXAMPLES / "make_event_log.py", tmp_path / "log.csv"], tmp_path)
    assert out.startswith("wrote log.csv: ")
    assert (tmp_path / "log.csv").read_bytes() == (EXAMPLES / "event_log.csv").read_bytes()


@pytest.mark.slow
def test_event_log(tmp_path):
    # two PyMC fits (homogeneous and full) and two projections: ~40 s in quick mode
    out = _run([EXAMPLES / "event_log.py"], tmp_path)
    assert "event_log.csv: 601 interruptions over 1440 h on 2048 nodes" in out
    assert "LOO prefers: full" in out
    for name in ("trend shape", "lemon nodes: fraction", "diurnal amplitude"):
        assert name in out
    rows = re.findall(r"^\s*([\d,]+) GPUs: ETTR ([\d.]+) \[([\d.]+), ([\d.]+)\]", out, re.M)
    assert [r[0] for r in rows] == ["4,096", "16,384", "65,536"]
    med = [float(r[1]) for r in rows]
    assert med == sorted(med, reverse=True)
    for _, m, lo, hi in rows:
        assert float(lo) <= float(m) <= float(hi)


def test_example_sweep_spec_validates_and_dry_runs(capsys):
    from relmc.cli import main
    from relmc.sweep import load_spec

    spec = load_spec(EXAMPLES / "sweep.toml")
    assert [len(values) for _, values in spec.axes] == [3, 4, 2]
    assert main(["sweep", "submit", str(EXAMPLES / "sweep.toml"), "--dry-run"]) == 0
    script = capsys.readouterr().out
    assert "#SBATCH --array=0-3" in script
    assert '--shard "$SLURM_ARRAY_TASK_ID" --shards 4' in script
    assert not (EXAMPLES / "sweep.zarr").exists()  # a dry run writes nothing


def test_example_scenario_toml_simulates(tmp_path, capsys):
    from relmc.cli import main

    code = main(
        [
            "simulate",
            str(EXAMPLES / "scenario.toml"),
            "--n-trials",
            "200",
            "--seed",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0, capsys.readouterr().err
    nc = list(tmp_path.glob("*.nc"))
    assert nc, "relmc simulate wrote no netCDF"
    import xarray as xr

    with xr.open_dataset(nc[0]) as ds:
        assert list(ds["category"].values) == ["GPU", "Host", "Network hang", "Software"]
        assert "wall_hours" in ds


def test_time_varying(tmp_path):
    out = _run([EXAMPLES / "time_varying.py"], tmp_path)
    row = re.compile(
        r"^(.+?)\s+([\d.]+) \[([\d.]+), ([\d.]+)\]\s+([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\]"
        r"\s+(-?[\d.]+)\s+([\d.]+)$",
        re.M,
    )
    rows = row.findall(out)
    assert len(rows) == 14  # seven scenarios at two sizes
    for r in rows:
        med, lo, hi = map(float, r[1:4])
        assert lo <= med <= hi
        assert float(r[8]) > 0  # power swings every day
    # the baseline's gain over itself is exactly zero (paired trials)
    assert [r[4] for r in rows if r[0] == "constant"] == ["+0.000", "+0.000"]
    # ETTR falls from 16k to 100k GPUs in every scenario
    ettr = {(r[0].strip(), i // 7): float(r[1]) for i, r in enumerate(rows)}
    assert all(
        ettr[(name, 0)] > ettr[(name, 1)] for name, _ in ettr if _ == 0 and "keep 2" not in name
    )
    # stragglers and latent SDC cost ETTR at both sizes (their own lost-time causes); a
    # retention shorter than the SDC latency sends the job back to its start: far worse
    for size in (0, 1):
        assert ettr[("stragglers (assumed rate)", size)] < ettr[("constant", size)]
        keep12 = ettr[("latent SDC (4 h, assumed), keep 12", size)]
        assert keep12 < ettr[("constant", size)]
        assert ettr[("latent SDC (4 h, assumed), keep 2", size)] < keep12 - 0.2
    assert "16,384 GPUs (power step 9.8 MW)" in out
    # the numbers README.md quotes from this run (its quick mode, a fixed seed) are the ones
    # it prints: a change that moves the streams must update them
    readme = " ".join((ROOT / "README.md").read_text().split())
    gain = {(r[0].strip(), i // 7): f"{r[4]} [{r[5]}, {r[6]}]" for i, r in enumerate(rows)}
    straggle = "stragglers (assumed rate)"
    keep12, keep2 = "latent SDC (4 h, assumed), keep 12", "latent SDC (4 h, assumed), keep 2"
    for quoted in (
        f"median ETTR {gain[(straggle, 0)]} at 16,384 GPUs and {gain[(straggle, 1)]} at 100,000",
        f"costs {gain[(keep12, 1)]} at 100,000 GPUs",
        f"(median ETTR {ettr[(keep2, 0)]:.3f} at 16,384 GPUs)",
    ):
        assert quoted in readme, quoted


def test_levers(tmp_path):
    out = _run([EXAMPLES / "levers.py"], tmp_path)
    row = re.compile(
        r"^(.+?)\s+([\d.]+) \[([\d.]+), ([\d.]+)\]\s+([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\]"
        r"\s+([\d.]+)$",
        re.M,
    )
    rows = row.findall(out)
    assert len(rows) == 16  # eight policies at two sizes
    for r in rows:
        assert float(r[2]) <= float(r[1]) <= float(r[3])
        assert float(r[5]) <= float(r[4]) <= float(r[6])
    base = [r for r in rows if r[0].startswith("baseline")]
    assert [r[4] for r in base] == ["+0.000", "+0.000"]  # paired: zero gain over itself
    # restoring from memory in 1/13 of the restart time gains at both sizes, across its band
    memory = [r for r in rows if r[0] == "memory restore"]
    assert all(float(r[5]) > 0 for r in memory)
    # stragglers with the node model (the kernel's combined path) cost time at both sizes
    slow = [r for r in rows if r[0].startswith("stragglers")]
    assert len(slow) == 4 and all(float(r[4]) < 0 for r in slow)


def test_uncertain_overheads(tmp_path):
    out = _run([EXAMPLES / "uncertain_overheads.py"], tmp_path)
    row = re.compile(
        r"^(.+?)\s+([\d,]+)\s+([\d.]+)\s+\[([\d.]+), ([\d.]+)\]\s+\[([\d.]+), ([\d.]+)\]", re.M
    )
    rows = {(r[0].strip(), r[1]): tuple(map(float, r[2:])) for r in row.findall(out)}
    assert len(rows) == 8  # four states of knowledge at two sizes
    for size in ("16,384", "100,000"):
        known = rows[("known", size)]
        rsc = rows[("restart 5-20 min (RSC), per draw", size)]
        # an unknown restart time widens the credible interval of the expected ETTR
        assert rsc[2] - rsc[1] > 1.5 * (known[2] - known[1])
    for med, c_lo, c_hi, p_lo, p_hi in rows.values():
        assert c_lo <= med <= c_hi and p_lo <= med <= p_hi
    assert "assumed restart_hours = " in out


# --- `relmc examples`: the scripts installed with the package --------------------------------


def test_examples_command_lists_every_script_and_data_file(capsys):
    from relmc.cli import main
    from relmc.cli.examples import DATA, examples_dir, summary

    assert examples_dir() == EXAMPLES  # a source checkout: the repository's folder
    # every file of examples/ is either a script or a described data file (a new data file
    # must be described, or `--copy` would leave it behind and its script would fail)
    others = {p.name for p in EXAMPLES.iterdir() if p.is_file() and p.suffix != ".py"}
    assert others == set(DATA)
    assert main(["examples"]) == 0
    out = capsys.readouterr().out
    for p in EXAMPLES.glob("*.py"):
        assert re.search(rf"^{re.escape(p.name)}\s+\S", out, re.M), p.name
        assert summary(p) and summary(p) in out  # each script says what it shows
    for name, text in DATA.items():
        assert f"{name}" in out and text in out
    assert str(EXAMPLES) in out


def test_examples_summary_is_the_first_sentence(tmp_path):
    from relmc.cli.examples import summary

    p = tmp_path / "x.py"
    p.write_text('"""What does a thing cost? More words\nhere.\n\nSecond paragraph."""\n')
    assert summary(p) == "What does a thing cost?"
    p.write_text('"""Fit a log. Then project it."""\n')  # a stop at an odd index: cut after it
    assert summary(p) == "Fit a log."
    p.write_text('"""One line without a stop"""\n')
    assert summary(p) == "One line without a stop"
    p.write_text("x = 1\n")
    assert summary(p) == ""


def test_examples_copy_is_complete_and_never_overwrites(tmp_path):
    from clirun import one_error_line, run_cli

    from relmc.cli.examples import DATA

    dest = tmp_path / "mine"
    r = run_cli("examples", "--copy", dest)
    assert r.returncode == 0, r.stderr
    expected = sorted([p.name for p in EXAMPLES.glob("*.py")] + list(DATA))
    assert sorted(p.name for p in dest.iterdir()) == expected  # no staging or lock left
    for name in expected:
        assert (dest / name).read_bytes() == (EXAMPLES / name).read_bytes(), name
    # a second copy refuses before writing anything; an edited file survives
    (dest / "quickstart.py").write_text("# mine\n")
    line = one_error_line(run_cli("examples", "--copy", dest))
    assert "--copy" in line and "--force" in line and f"and {len(expected) - 3} more" in line
    assert (dest / "quickstart.py").read_text() == "# mine\n"
    # one clash is named; the other files are not written either
    other = tmp_path / "other"
    other.mkdir()
    (other / "quickstart.py").write_text("# mine\n")
    assert "already has quickstart.py;" in one_error_line(run_cli("examples", "--copy", other))
    assert [p.name for p in other.iterdir()] == ["quickstart.py"]
    # --force replaces
    assert run_cli("examples", "--copy", dest, "--force").returncode == 0
    assert (dest / "quickstart.py").read_bytes() == (EXAMPLES / "quickstart.py").read_bytes()
    # a file where the folder should be: one line, nothing written
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "--copy" in one_error_line(run_cli("examples", "--copy", blocker))
    assert blocker.read_text() == "x"
