"""Medians over fresh processes of ``bench_kernel.py``'s rows.

The same code runs up to ~14 % faster in one process than in another on the hosts measured
(benchmarks/README.md, "A block's call with fewer arguments; a process's luck"): one
``bench_kernel.py`` run reads one process. This runs it ``--n-procs`` times (sections [0]
and [6] unless ``--all``), each a fresh process writing its rows to JSON, and prints for each
row the median and range of its value (the first number: ns/event, ns/draw, a ratio) and,
where the row has them, of its share of the exponential-draw rate (``draw/event``, against
the same process's summed draw) and of its speed against the issue-3 kernel measured in the
same process (``before``). The targets of issues 10 and 11 are read against these
medians.

Run: ``python benchmarks/bench_procs.py [--n-procs 5] [--quick] [--all]`` (~3.5 min a
process with the kernel paths alone on a 2-core host; ``--quick``: ~30 s, noisier).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
SHARE = re.compile(r"draw/event (\d+(?:\.\d+)?)")
BEFORE = re.compile(r"before \d+(?:\.\d+)? ns: (\d+(?:\.\d+)?)x")


def first_number(text: str) -> float | None:
    """The first number in ``text`` (thousands separators dropped), or None."""
    m = NUMBER.search(text)
    return float(m.group().replace(",", "")) if m else None


def draw_share(note: str) -> float | None:
    """A row's share of the exponential-draw rate (``draw/event X`` in its note), or None."""
    m = SHARE.search(note)
    return float(m.group(1)) if m else None


def before_ratio(note: str) -> float | None:
    """A row's speed against the issue-3 kernel (``before T ns: Rx`` in its note), or None."""
    m = BEFORE.search(note)
    return float(m.group(1)) if m else None


def spread(values: list[float | None], digits: int | None = None) -> str:
    """``median (min-max)`` of the values, or "" when a run lacks one.

    ``digits`` after the point; by default by size (3 below 2, 2 below 10, else 1).
    """
    if not values or any(v is None for v in values):
        return ""
    med = statistics.median(values)
    if digits is None:
        digits = 3 if med < 2 else 2 if med < 10 else 1
    return f"{med:.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def summarize(runs: list[list[list[str]]]) -> list[tuple[str, str, str, str, str]]:
    """Each row's ``(measure, target, value, draw share, against the issue-3 kernel)``.

    Each a spread over the runs (:func:`spread`).

    The runs must list the same measures in the same order (the same command); a row is
    matched by its position, as a measure's name may repeat across sections.
    """
    names = [r[0] for r in runs[0]]
    for k, run in enumerate(runs[1:], start=1):
        if [r[0] for r in run] != names:
            raise ValueError(f"run {k} lists other rows than run 0")
    out = []
    for i, (measure, _value, target, _note) in enumerate(runs[0]):
        values = [first_number(run[i][1]) for run in runs]
        shares = [draw_share(run[i][3]) for run in runs]
        befores = [before_ratio(run[i][3]) for run in runs]
        out.append((measure, target, spread(values), spread(shares), spread(befores)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-procs", type=int, default=5, help="fresh processes (default 5)")
    ap.add_argument("--quick", action="store_true", help="bench_kernel.py's --quick")
    ap.add_argument("--all", action="store_true", help="every section, not only [0] and [6]")
    args = ap.parse_args(argv)
    if args.n_procs < 1:
        ap.error(f"--n-procs must be at least 1, got {args.n_procs}")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.n_procs):
            path = Path(tmp) / f"run{k}.json"
            cmd = [sys.executable, str(HERE / "bench_kernel.py"), "--json", str(path)]
            cmd += [] if args.all else ["--paths-only"]
            cmd += ["--quick"] if args.quick else []
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            runs.append(json.loads(path.read_text())["rows"])
            print(f"process {k + 1} of {args.n_procs} done", file=sys.stderr, flush=True)
    print(f"bench_kernel.py rows over {args.n_procs} processes: median (range)")
    print(f"  {'row':<56} {'target':<12} {'value':<24} {'draw/event':<24} x issue 3")
    for measure, target, value, share, before in summarize(runs):
        print(f"  {measure[:56]:<56} {target:<12} {value:<24} {share:<24} {before}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
