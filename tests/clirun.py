"""Running the ``relmc`` command in a subprocess, and checking its one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys

ENV = {**os.environ, "MPLBACKEND": "Agg"}


def run_cli(*args, cwd=None, prelude: str = "") -> subprocess.CompletedProcess:
    """``relmc ARGS`` in a subprocess, after ``prelude`` (e.g. blocking an import or a write)."""
    code = (
        f"import sys\n{prelude}\nfrom relmc.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_error_line(r: subprocess.CompletedProcess) -> str:
    """Exit 2, exactly one stderr line, no traceback: return that line."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("relmc: error: ")
    return lines[0]
