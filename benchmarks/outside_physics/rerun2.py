"""Repeat one fuzz2 spec with other sizes or seeds, full table.

Spec ``I`` is ``fuzz2.gen(I, nodes)``, as in ``fuzz2.py`` (``loose`` is read from the command
line, as there); the spec dict and the full table of ``compare2.compare`` (or
``compare_nodes.compare``) are printed.

    python benchmarks/outside_physics/rerun2.py I [NRELMC] [NINDEP] [SEED] [nodes] [loose]
        [--out DIR]

I       fuzz2 spec index
NRELMC  relmc trials (default 6000); NINDEP  independent trials (default 1500)
SEED    seed (default I + 1, as in ``fuzz2.py``)
--out   folder for the log ``log_rerun2_{I}_{SEED}[_loose][_nodes].txt`` (default ``results/``)

The recorded run was ``rerun2.py 152 40000 15000 9 nodes loose``.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare2  # noqa: E402
import compare_nodes  # noqa: E402
import fuzz2  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("i", type=int, help="fuzz2 spec index")
    ap.add_argument("n_relmc", nargs="?", type=int, default=6000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1500, help="independent trials")
    ap.add_argument("seed", nargs="?", type=int, default=None, help="seed (default I + 1)")
    ap.add_argument("flags", nargs="*", help="nodes, loose")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    if set(args.flags) - {"nodes", "loose"}:
        ap.error(f"flags must be nodes or loose, not {args.flags}")
    i = args.i
    seed = i + 1 if args.seed is None else args.seed
    nodes = "nodes" in args.flags
    suffix = "".join("_" + f for f in sorted(set(args.flags)))
    log_to(args.out, f"log_rerun2_{i}_{seed}{suffix}.txt")
    spec = fuzz2.gen(i, nodes)
    print(spec)
    cmp = compare_nodes.compare if nodes else compare2.compare
    cmp(f"f{i}", spec, args.n_relmc, args.n_indep, seed=seed)
