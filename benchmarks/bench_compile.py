"""What a first run pays to compile: ``relmc project`` on a cold numba cache, then cached.

With ``--nodes``, also what a first run of the node model pays: one ``simulate`` call of 16
trials of ``bench_nodes.py``'s [1] scenario at 2,048 GPUs (the node path), and of its [3]
scenario (stragglers and SDC with the node model: the combined path), each in a fresh process
on a cold cache of its own (about three more minutes).

Each run is a fresh Python process with ``NUMBA_CACHE_DIR`` set to a new temporary folder
(cold), then the same process command again with that folder (cached). Numba's compile events
(``numba:compile``) are recorded in the child; a function's *self* time excludes the
compiles of the functions it calls, so the rows add up to the compile time in all. Results
and figures go to a temporary folder too. This measures what README's first command costs on
a fresh machine (installing aside); it takes about two minutes.

Run: ``python benchmarks/bench_compile.py [--top N] [--nodes]``.
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
    if sys.argv[2] == "project":
        from relmc.cli import main

        if main(["project", "--out", sys.argv[1]]) != 0:
            sys.exit("relmc project failed")
    else:
        sys.path.insert(0, sys.argv[3])
        import bench_kernel as bk
        import bench_nodes as bn
        from relmc.sim.simulate import simulate

        base = bk.llama3_scenario(2048)
        sc = bn.nodes_on(base) if sys.argv[2] == "nodes" else bn.physics_nodes_on(base)
        simulate(sc, n_trials=16, seed=1, n_threads=1)
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


def run(cache: str, out: str, what: str = "project") -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    here = os.path.dirname(os.path.abspath(__file__))
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, out, what, here],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process"] = time.perf_counter() - t0
    return result


def print_top(self_time: dict, top: int) -> None:
    """The ``top`` functions by compile self time, slowest first."""
    for name, s in sorted(self_time.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {s:7.1f} s  {name}")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=8, help="functions listed by compile self time")
    ap.add_argument("--nodes", action="store_true", help="also the node and combined paths")
    args = ap.parse_args(argv)
    paths = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache, out = os.path.join(tmp, "numba"), os.path.join(tmp, "out")
        cold = run(cache, out)
        warm = run(cache, out)
        for what in ("nodes", "physics_nodes") if args.nodes else ():
            paths[what] = run(os.path.join(tmp, "numba_" + what), out, what)
    for label, r in (("cold cache", cold), ("cached", warm)):
        compile_s = sum(r["self"].values())
        print(
            f"relmc project, {label}: {r['process']:.1f} s the process, {r['wall']:.1f} s in "
            f"main, {compile_s:.1f} s compiling ({len(r['self'])} functions)"
        )
    print(f"compile self time on the cold cache, top {args.top}:")
    print_top(cold["self"], args.top)
    for what, r in paths.items():
        compile_s = sum(r["self"].values())
        print(
            f"{what} scenario at 2,048 GPUs, 16 trials, cold cache: {r['process']:.1f} s the "
            f"process, {compile_s:.1f} s compiling ({len(r['self'])} functions); top {args.top}:"
        )
        print_top(r["self"], args.top)
    return {"cold": cold, "warm": warm, **paths}


if __name__ == "__main__":
    main()
