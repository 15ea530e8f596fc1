"""CF conventions shared by the datasets relmc builds.

Unit strings are UDUNITS (and pint) syntax: ``"h"``, ``"1/h"``, ``"1/d"`` (per day), ``"1"``
(dimensionless: ratios, fractions, counts), ``"MW"``, ``"W"``. Prose such as "events per
unit-hour" goes in ``long_name`` or ``description``, or stays in ``rate_units``.
"""

from __future__ import annotations

#: ``attrs["Conventions"]`` of every dataset relmc builds.
CONVENTIONS = "CF-1.10"

#: UDUNITS units of a rate, keyed by a dataset's prose ``rate_units``.
_RATE_UNITS = {
    "events per unit-hour": "1/h",
    "events per 1000 pump-hours": "1/(1000 h)",
}


def rate_units(prose: str) -> str:
    """UDUNITS units of a rate whose dataset says ``rate_units=prose``.

    Known prose maps to a unit string (``"events per unit-hour"`` -> ``"1/h"``); anything else,
    e.g. a user's own wording, is returned unchanged.
    """
    return _RATE_UNITS.get(prose, prose)


def provenance() -> dict[str, str]:
    """``Conventions`` and ``relmc_version``: the attrs every dataset relmc builds records."""
    from relmc import __version__

    return {"Conventions": CONVENTIONS, "relmc_version": __version__}
