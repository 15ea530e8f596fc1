"""What a first run pays to compile: ``relmc project`` on a cold numba cache, then cached.

Each run is a fresh Python process with ``NUMBA_CACHE_DIR`` set to a new temporary folder
(cold), then the same process command again with that folder (cached). Numba's compile events
(``numba:compile``) are recorded in the child; a function's *self* time excludes the
compiles of the functions it calls, so the rows add up to the compile time in all. Results
and figures go to a temporary folder too. This measures what README's first command costs on
a fresh machine (installing aside); it takes about two minutes.

Run: ``python benchmarks/bench_compile.py [--top N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
from numba.core import event

t0 = time.perf_counter()
with event.install_recorder("numba:compile") as rec:
    from relmc.cli import main

    if main(["project", "--out", sys.argv[1]]) != 0:
        sys.exit("relmc project failed")
wall = time.perf_counter() - t0
self_time = {}
stack = []
for ts, ev in rec.buffer:
    name = ev.data["dispatcher"].py_func.__qualname__
    if ev.is_start:
        stack.append([name, ts, 0.0])
        continue
    name, start, child = stack.pop()
    self_time[name] = self_time.get(name, 0.0) + (ts - start) - child
    if stack:
        stack[-1][2] += ts - start
print(json.dumps({"wall": wall, "self": self_time}))
"""


def run(cache: str, out: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, out], env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process"] = time.perf_counter() - t0
    return result


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=8, help="functions listed by compile self time")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cache, out = os.path.join(tmp, "numba"), os.path.join(tmp, "out")
        cold = run(cache, out)
        warm = run(cache, out)
    for label, r in (("cold cache", cold), ("cached", warm)):
        compile_s = sum(r["self"].values())
        print(
            f"relmc project, {label}: {r['process']:.1f} s the process, {r['wall']:.1f} s in "
            f"main, {compile_s:.1f} s compiling ({len(r['self'])} functions)"
        )
    print(f"compile self time on the cold cache, top {args.top}:")
    for name, s in sorted(cold["self"].items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {s:7.1f} s  {name}")
    return {"cold": cold, "warm": warm}


if __name__ == "__main__":
    main()
