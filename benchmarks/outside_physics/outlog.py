"""Copy what a script prints to a log file in its ``--out`` folder (helper, not a script).

The walk's logs (``log_*.txt``) were made by redirecting stdout; the packaged entry points call
`log_to` instead, so that every run leaves its printed table in ``--out`` (default
``results/`` beside the scripts) as well as on the terminal. Imported by the other scripts;
there is nothing to run.
"""

import atexit
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results"


class _Tee:
    """A write-only stream that writes to several streams."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        """Write `s` to every stream."""
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        """Flush every stream."""
        for st in self.streams:
            st.flush()


def log_to(out, name):
    """Tee ``sys.stdout`` to ``out / name`` (creating `out`); return the log's path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    f = open(path, "w")  # closed at exit, after the last print
    term = sys.stdout
    sys.stdout = _Tee(term, f)

    def _close():
        sys.stdout.flush()
        sys.stdout = term
        f.close()

    atexit.register(_close)
    return path


def print_rows(rows, bad):
    """Print a comparison's rows, then its broken invariants ``bad``.

    A row is ``(output, mean, se, mean, se, z)`` of relmc and the independent code; outputs
    zero in both are left out, and ``<<<`` marks |z| past 4.
    """
    for k, ma, sa, mb, sb, z in rows:
        if ma == 0 and mb == 0:
            continue
        flag = "  <<<" if abs(z) > 4 else ""
        print(
            f"  {k:22s} relmc {ma:10.5g} ±{sa:8.2g}   indep {mb:10.5g} ±{sb:8.2g}   "
            f"z={z:6.2f}{flag}"
        )
    for m in bad:
        print("  INVARIANT:", m)
