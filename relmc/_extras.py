"""Optional dependencies: which pip extra provides each, and an import that names it.

The core package imports none of these at module level. Code that needs one calls
:func:`require`, whose ``ImportError`` says which extra to install; the ``relmc`` command
prints that one line for any missing optional module, wherever the import happened.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "require", "install_hint"]

#: top-level module -> the relmc extra that installs it
EXTRAS = {
    "matplotlib": "plot",
    "zarr": "sweep",
    "dask": "sweep",
    "distributed": "sweep",
}


def install_hint(module: str) -> str | None:
    """``pip install "relmc[EXTRA]"`` for an optional module (any submodule), else ``None``."""
    extra = EXTRAS.get(module.split(".", 1)[0])
    return None if extra is None else f'pip install "relmc[{extra}]"'


def require(module: str) -> ModuleType:
    """Import an optional module; if it is missing, raise an ``ImportError`` naming its extra."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.split(".", 1)[0]
        raise ImportError(
            f"{top} is not installed; it comes with the '{EXTRAS[top]}' extra: "
            f"{install_hint(module)}",
            name=top,
        ) from e
