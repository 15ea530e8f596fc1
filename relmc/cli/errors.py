"""The one error handler of the ``relmc`` command, for every subcommand.

Bad input (a ``ValueError``, including a :class:`~relmc.errors.FieldError`), a file-system
error (``OSError``), a missing optional dependency (``ImportError``) and the last-resort
input errors that checks up front should have caught (``OverflowError``, ``csv.Error``,
``MemoryError``) each end in one line on stderr, ``relmc: error: ...``, and exit status 2; a
failed external tool (``RuntimeError``, e.g. ``sbatch``) the same line with status 1. A closed
stdout (``relmc datasets | head -1``) ends quietly with status 1, as Unix tools do. None of them
prints a traceback.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import warnings
from collections.abc import Callable, Mapping

from relmc._extras import install_hint
from relmc.cli.options import PROG, one_line
from relmc.cli.output import human_output
from relmc.errors import FieldError

__all__ = ["message", "run_command"]


def message(err: BaseException, flags: Mapping[str, str]) -> str:
    """Return ``err`` as one line, naming the flag that set a :class:`FieldError`'s field.

    ``flags`` maps dotted API fields to the command-line flag that set them
    (:class:`relmc.cli.options.Field`). A field that no flag set (it came from a file or a
    default) and a plain ``ValueError`` get nothing appended.
    """
    text = one_line(err)
    if isinstance(err, ImportError):
        hint = install_hint(err.name or "")
        if hint is not None and hint not in text:
            text = f"{text}; {hint}"
    if isinstance(err, FieldError) and err.field in flags:
        text = f"{text} (option {flags[err.field]})"
    return text


def _error(text: str) -> None:
    print(f"{PROG}: error: {text}", file=sys.stderr, flush=True)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"{PROG}: warning: {one_line(message)}", file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a subcommand's ``func(args)``; turn expected failures into one line and a status."""
    flags = getattr(args, "_flags", {})
    with warnings.catch_warnings(), human_output(args):
        warnings.showwarning = _show_warning
        try:
            code = func(args)
            sys.stdout.flush()  # a closed pipe may only show here
            return code
        except BrokenPipeError:  # e.g. `relmc datasets | head -1`: stop quietly
            _silence_stdout()
            return 1
        except (ValueError, OSError, ImportError, OverflowError, csv.Error) as e:
            _error(message(e, flags))
            return 2
        except MemoryError:
            _error("out of memory; use fewer trials, draws or cells (--n-trials, --n-draws)")
            return 2
        except RuntimeError as e:
            _error(message(e, flags))
            return 1
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            return 130
