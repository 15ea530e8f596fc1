"""Summarise comparison logs: per scenario the finished shares, max |z| (output) and KS p.

Reads the tables that ``compare2.compare`` / ``compare_nodes.compare`` print (logs of
``run2.py``, ``run_nodes.py``, ``mut.py``, ``rerun2.py``); prints one line per scenario:
log, name, finished relmc/independent, the largest |z| and its output, KS p wall/progress.

    python benchmarks/outside_physics/maxz.py LOG [LOG ...] [--out DIR]

LOG     log files (e.g. ``results/log_run2_*.txt``)
--out   folder for the summary ``log_maxz.txt`` (default ``results/`` beside this script)
"""

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from outlog import DEFAULT_OUT, log_to  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("logs", nargs="+", type=Path, help="log files")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    logs = [Path(fn).resolve() for fn in args.logs]  # read before the summary is opened
    log_to(args.out, "log_maxz.txt")
    for path in logs:
        fn = path.name
        name, fin, ks, best = None, "", "", (0, "")
        for line in open(path):
            m = re.match(
                r"== (\S+) finished (\S+) .*KS\(wall\) p=(\S+)(?:  KS\(progress\) p=(\S+))?", line
            )
            if m:
                if name:
                    print(
                        f"{fn:18s} {name:18s} fin {fin:12s} maxz {best[0]:5.2f} ({best[1]})",
                        f" KS {ks}",
                    )
                name, fin, ks = m.group(1), m.group(2), m.group(3) + "/" + str(m.group(4))
                best = (0, "")
                continue
            m = re.match(r"\s+(\S+)\s+relmc.*z=\s*(\S+)", line)
            if m and name:
                z = abs(float(m.group(2)))
                if z > best[0]:
                    best = (z, m.group(1))
        if name:
            print(f"{fn:18s} {name:18s} fin {fin:12s} maxz {best[0]:5.2f} ({best[1]})", f" KS {ks}")
