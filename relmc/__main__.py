"""``python -m relmc``: the same command as ``relmc`` (see :mod:`relmc.cli`)."""

from relmc.cli import main

raise SystemExit(main())
