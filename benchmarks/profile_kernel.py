"""Where a kernel path's time goes, by function: ``perf record`` with numba's functions named.

    python benchmarks/profile_kernel.py renewal@2048             # ~2-3 min (compiles included)
    python benchmarks/profile_kernel.py "diurnal a=0.5, one peak hour@2048" --seconds 12
    python benchmarks/profile_kernel.py --list                   # the configurations' names

``perf`` names a JIT-compiled function only from a map, ``/tmp/perf-<pid>.map``, which numba
does not write. This script runs a configuration of ``bench_kernel.py`` in a child process
(blocks of 256 trials as ``run_blocks`` runs them, one thread) with an empty numba cache
directory, so that every function is compiled in that process and its LLVM module is at hand;
the child writes the map (each function's address from its library, the size up to the next
address) and then loops over the blocks while ``perf record -p`` samples it. The report lists
the share of samples per function: numba's names shortened to ``module.function`` (a function
numba or LLVM inlined counts in its caller), NumPy's PCG64 calls and libm's as they are.

Configurations: ``renewal@N`` (Llama 3 rates and categories, no maintenance, N GPUs),
``default@N`` (with Llama 3's planned maintenance), and every row of ``bench_kernel.py``'s
section [6] (``physics_configs``, at 100k GPUs), or with ``@N`` one of its rows at N GPUs
(``physics_configs_at_sizes``); ``feature_sizes.py``'s rows at its sizes (``trend
1.5@100000``, ``profile 24h@2048``, ...). Needs ``perf`` (Debian: ``linux-perf``) and permission to
attach to a process (``kernel.perf_event_paranoid`` <= 1, or root). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def configs() -> dict[str, object]:
    """The configurations by name (a Scenario each)."""
    sys.path.insert(0, str(HERE))
    from bench_kernel import (
        paths_configs,
        paths_configs_at,
        physics_configs,
        physics_configs_at_sizes,
    )

    out: dict[str, object] = dict(paths_configs())
    for n in (2048, 16_384, 100_000, 1_000_000):
        out[f"renewal@{n}"] = paths_configs_at(n, maint=False)
        out[f"default@{n}"] = paths_configs_at(n, maint=True)
    out.update(physics_configs())
    for (name, n), sc in physics_configs_at_sizes().items():
        out[f"{name}@{n}"] = sc
    from feature_sizes import SIZES, features

    for n in SIZES:  # feature_sizes.py's rows: "trend 1.5@100000", "profile 24h@2048", ...
        for name, sc in features(n).items():
            if name != "off":
                out[f"{name}@{n}"] = sc
    return out


def short_name(mangled: str) -> str:
    """``relmc.sim._kernels._block_renewal`` from numba's mangled name (else as it is)."""
    if not mangled.startswith("_ZN"):
        return mangled
    parts, k = [], 3
    while k < len(mangled) and mangled[k].isdigit():
        d = k
        while mangled[d].isdigit():
            d += 1
        n = int(mangled[k:d])
        parts.append(mangled[d : d + n])
        k = d + n
    return ".".join(parts) if parts else mangled


def write_perf_map(modules, dump: str = "", into: Path | None = None) -> int:
    """Write ``/tmp/perf-<pid>.map`` for the functions compiled in ``modules``' dispatchers.

    Returns how many functions it names. Functions loaded from numba's cache have no LLVM
    module at hand and are skipped (hence the child's empty cache directory). With ``dump``,
    the machine code of every function whose short name ends with it is written into the
    folder ``into`` (``<address in hex>.bin``, for ``--annotate``).
    """
    import numba

    names: dict[int, str] = {}
    for mod in modules:
        for attr in dir(mod):
            obj = getattr(mod, attr)
            if not isinstance(obj, numba.core.registry.CPUDispatcher):
                continue
            for cres in obj.overloads.values():
                lib = cres.library
                module = getattr(lib, "_final_module", None)
                if module is None:
                    continue
                for fn in module.functions:
                    if fn.is_declaration:
                        continue
                    addr = lib.get_pointer_to_function(fn.name)
                    if addr:
                        names[addr] = short_name(fn.name)
    addrs = sorted(names)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for k, a in enumerate(addrs):
            gap = addrs[k + 1] - a if k + 1 < len(addrs) else 1 << 12
            fh.write(f"{a:x} {min(gap, 1 << 20):x} {names[a]}\n")
            if dump and into is not None and names[a].endswith(dump):
                (into / f"{a:x}.bin").write_bytes(ctypes.string_at(a, min(gap, 1 << 20)))
    return len(addrs)


def child(name: str, seconds: float, n_trials: int | None, dump: str = "") -> None:
    """Compile, write the map, say ``ready``, then run blocks of ``name`` for ``seconds``."""
    from bench_kernel import run_blocks, sized_trials

    from relmc.sim import _kernels
    from relmc.sim.simulate import kernel_inputs

    sc = configs()[name]
    n, pilot = sized_trials(sc, 2e6)  # its pilot compiles every function the runs call
    n = n_trials or n
    x = kernel_inputs(sc, None, n)[0]
    n_named = write_perf_map([_kernels], dump, Path(os.environ.get("NUMBA_CACHE_DIR", ".")))
    print(f"ready {n_named} functions named; {n} trials, {pilot:,.0f} events a trial", flush=True)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        run_blocks(_kernels.simulate_block, x)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", nargs="?", default="renewal@2048")
    ap.add_argument("--seconds", type=float, default=10.0, help="sampled time (default 10)")
    ap.add_argument("--trials", type=int, default=None, help="trials per run of the blocks")
    ap.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    ap.add_argument("--list", action="store_true", help="list the configurations and stop")
    ap.add_argument(
        "--annotate",
        default="",
        help="also list the hottest instructions of the functions whose name ends with this",
    )
    ap.add_argument("--hot", type=int, default=40, help="instructions listed (default 40)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(configs()))
        return
    if args.child:  # (its --hot is unused)
        child(args.config, args.seconds + 5.0, args.trials, args.annotate)
        return
    if args.config not in configs():
        raise SystemExit(f"unknown configuration {args.config!r}; see --list")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)  # empty: every function compiled here
        cmd = [sys.executable, __file__, args.config, "--child", f"--seconds={args.seconds}"]
        if args.trials:
            cmd.append(f"--trials={args.trials}")
        if args.annotate:
            cmd.append(f"--annotate={args.annotate}")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        if not line.startswith("ready"):
            proc.wait()
            raise SystemExit(f"the child stopped before its runs: {line!r}")
        print(f"{args.config}: {line[6:].strip()}")
        data = Path(tmp) / "perf.data"
        subprocess.run(
            ["perf", "record", "-q", "-p", str(proc.pid), "-o", str(data), "--", "sleep",
             str(args.seconds)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        rep = subprocess.run(
            ["perf", "report", "-i", str(data), "--stdio", "--sort", "sym"],
            capture_output=True,
            text=True,
            check=True,
        )
        proc.wait()
        hot = annotate(data, Path(tmp), top=args.hot) if args.annotate else []
        try:
            os.unlink(f"/tmp/perf-{proc.pid}.map")
        except FileNotFoundError:
            pass
    shares: dict[str, float] = {}
    for line in rep.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(.*\S)", line)
        if m:  # a function's versions (signatures) summed under its name
            sym = m.group(2).replace("__pyx_f_5numpy_6random_6_pcg64_", "numpy PCG64 ")
            shares[sym] = shares.get(sym, 0.0) + float(m.group(1))
    rows = sorted(shares.items(), key=lambda kv: -kv[1])
    print(f"{'share':>7}  function (samples of the child, {args.seconds:g} s)")
    for sym, share in rows[: args.top]:
        print(f"{share:6.2f}%  {sym[:100]}")
    for line in hot:
        print(line)


def annotate(data: Path, folder: Path, width: int = 6, top: int = 40) -> list[str]:
    """The hottest instructions of the dumped functions, with the samples at each.

    Each function's code (``<address>.bin``) is disassembled with ``objdump`` at its address;
    ``perf script`` gives every sample's instruction pointer. Lists the ``top`` instructions
    by samples, each with the ``width`` instructions before it (a sample usually lands on
    the instruction after the one that stalled), in address order; percentages are of the
    dumped functions' samples.
    """
    ips = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True, check=True
    ).stdout.split()
    counts = collections.Counter(int(x, 16) for x in ips)
    out: list[str] = []
    for f in sorted(folder.glob("*.bin")):
        base = int(f.stem, 16)
        dis = subprocess.run(
            ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f"--adjust-vma={base:#x}",
             "--no-show-raw-insn", str(f)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        rows = []
        for line in dis.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
            if m:
                rows.append((int(m.group(1), 16), m.group(2).strip()))
        total = sum(counts[a] for a, _ in rows)
        if not total:
            continue
        hottest = sorted(range(len(rows)), key=lambda k: -counts[rows[k][0]])[:top]
        shown = sorted({j for k in hottest for j in range(max(k - width, 0), k + 1)})
        out.append(f"\n{f.stem}: {total} samples, {len(rows)} instructions")
        prev = -2
        for j in shown:
            if j != prev + 1:
                out.append("   ...")
            a, ins = rows[j]
            n = counts[a]
            share = f"{100 * n / total:6.2f}%" if n else ""
            out.append(f"{share:7}  {a - base:6x}  {ins}")
            prev = j
    return out


if __name__ == "__main__":
    main()
