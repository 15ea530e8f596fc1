"""``relmc examples``: list the example scripts installed with relmc, or copy them to a folder.

The scripts live at the top of the source repository (``examples/``) and are installed with
the package as ``relmc/examples/`` (see ``[tool.setuptools]`` in ``pyproject.toml``), so a
``pip install relmc`` has them too. :func:`examples_dir` finds either.
"""

from __future__ import annotations

import argparse
import ast
import shutil
from pathlib import Path

from relmc.cli import options
from relmc.cli.output import say, table

EPILOG = """\
examples:
  relmc examples                      # what each script shows, and where they are
  relmc examples --copy my-examples   # copy every script and its data, then:
  cd my-examples && python quickstart.py

Each script runs as it is from the copy (the data files it reads are copied beside it).
"""

#: data files beside the scripts, and what reads them
DATA = {
    "my_cluster.csv": "illustrative counts CSV for own_cluster.py (not real data)",
    "event_log.csv": "SYNTHETIC event log for event_log.py (made by make_event_log.py)",
    "scenario.toml": "a complete scenario: relmc simulate scenario.toml",
    "sweep.toml": "a small sweep spec: relmc sweep run sweep.toml",
}


def examples_dir() -> Path:
    """Return the folder of the example scripts: installed (``relmc/examples``) or the repository's.

    Raises
    ------
    ValueError
        If neither exists (a copy of relmc installed without them).
    """
    import relmc

    here = Path(relmc.__file__).resolve().parent
    for d in (here / "examples", here.parent / "examples"):
        if (d / "quickstart.py").is_file():
            return d
    raise ValueError(
        f"the example scripts are not installed with this copy of relmc ({str(here)!r}); "
        "they are in examples/ of the source repository"
    )


def example_files(d: Path) -> list[Path]:
    """Return the scripts (``*.py``, sorted) then the data files of folder ``d``."""
    scripts = sorted(p for p in d.glob("*.py") if not p.name.startswith("_"))
    data = [d / name for name in DATA if (d / name).is_file()]
    return scripts + data


def summary(script: Path) -> str:
    """Return the first sentence of a script's module docstring (empty if it has none)."""
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    for end in (". ", "? "):
        if end in first:
            first = first[: first.index(end) + 1]
    return first


def add_parser(sub) -> None:
    """Register ``relmc examples``."""
    p = options.add_subcommand(
        sub, "examples", "list the example scripts installed with relmc, or copy them", EPILOG
    )
    p.add_argument(
        "--copy",
        metavar="DIR",
        help="copy every script and data file into DIR (created if needed); existing files "
        "are not overwritten unless --force",
    )
    p.add_argument("--force", action="store_true", help="with --copy: replace existing files")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc examples``."""
    from relmc._io import OutputSet

    d = examples_dir()
    files = example_files(d)
    if args.copy is None:
        rows = [[p.name, summary(p)] for p in files if p.suffix == ".py"]
        rows += [[p.name, DATA[p.name]] for p in files if p.suffix != ".py"]
        say(table(["file", "what it shows"], rows, [False, False]))
        say()
        say(f"installed in {d}")
        say("'relmc examples --copy DIR' copies them to a folder of your own to run and edit.")
        return 0
    if args.force is False:
        taken = [p.name for p in files if (Path(args.copy) / p.name).exists()]
        if taken:
            more = f" and {len(taken) - 3} more" if len(taken) > 3 else ""
            raise ValueError(
                f"--copy {args.copy!r} already has {', '.join(taken[:3])}{more}; "
                "choose another folder or add --force to replace them"
            )
    out = OutputSet(args.copy, [p.name for p in files], what="--copy")
    out.check()
    with out.stage() as st:
        for p in files:
            shutil.copyfile(p, st.path(p.name))
    say(f"copied {len(files)} files to {args.copy}; try: cd {args.copy} && python quickstart.py")
    return 0
