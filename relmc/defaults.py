"""Defaults that are modelling choices, stated once, outside the data model.

:mod:`relmc.scenario`'s dataclasses hold parameters and check them; which category hangs rather
than crashes, which root-cause groups need only a restart, and which data a default scenario
uses are choices about data, so they live here (and in a dataset's metadata, which may state
its own rules).

- :class:`RecoveryRules`: detection latency and recovery kind of a category from its name and
  root-cause group. A dataset may carry its own (``attrs["recovery_rules"]``, JSON); a fit
  records its dataset's rules, and :meth:`relmc.FailureModel.from_posterior` applies them.
  Without any, :data:`DEFAULT_RULES` applies: the taxonomy of Llama 3 Table 5, the only
  published per-category breakdown relmc bundles.
- :func:`default_failures` / :func:`default_scenario`: Llama 3 405B point rates on 16,384 GPUs
  with the default policy (reads the bundled data once per call).
- :data:`ASSUMED_DEFAULTS` / :func:`assumed_values`: the scenario defaults that no published
  number stands behind (``SOURCES.md`` has none for node-swap time, maintenance downtime,
  checkpoint or persist times; only a 5-20 minute *range* of restart overheads), so that a run
  can say which of them it used. ``relmc project`` and ``relmc simulate`` print them on one
  ``assumed:`` line on stderr (``--quiet`` drops it).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relmc.scenario import FailureModel, Scenario

__all__ = [
    "ASSUMED_DEFAULTS",
    "AssumedDefault",
    "assumed_values",
    "NCCL_DEFAULT_TIMEOUT_HOURS",
    "RecoveryRules",
    "LLAMA3_RULES",
    "DEFAULT_RULES",
    "default_failures",
    "default_scenario",
]

#: PyTorch's default NCCL collective timeout (``torch.distributed.init_process_group``) is 10
#: minutes: a job that hangs rather than crashes is seen only when this watchdog fires.
NCCL_DEFAULT_TIMEOUT_HOURS = 10.0 / 60.0


@dataclass(frozen=True)
class RecoveryRules:
    """How a category's detection latency and recovery kind follow from its name and group.

    Parameters
    ----------
    hang_categories : tuple of str
        Categories that show up as hangs (a stalled collective leaves ranks waiting until the
        watchdog fires); all others are crashes, seen at once.
    restart_groups : tuple of str
        Root-cause groups that need only a restart; all other groups take a host out of the
        job, so recovery swaps in a spare node. ``""`` (no group given) is usually here.
    hang_detection_hours : float
        Detection latency of a hang.
    category_recovery : tuple of (str, str)
        Explicit ``(category, "restart" | "swap")`` pairs (e.g. a counts file's ``recovery``
        column); they win over ``restart_groups`` for those categories.
    category_detection_hours : tuple of (str, float)
        Explicit ``(category, hours)`` detection latencies (a ``detection_minutes`` column);
        they win over ``hang_categories``.
    """

    hang_categories: tuple[str, ...] = ()
    restart_groups: tuple[str, ...] = ("",)
    hang_detection_hours: float = NCCL_DEFAULT_TIMEOUT_HOURS
    category_recovery: tuple[tuple[str, str], ...] = ()
    category_detection_hours: tuple[tuple[str, float], ...] = ()

    def detection_hours(self, category: str) -> float:
        """Return the detection latency (hours) of ``category``."""
        explicit = dict(self.category_detection_hours)
        if category in explicit:
            return float(explicit[category])
        return self.hang_detection_hours if category in self.hang_categories else 0.0

    def recovery(self, group: str, category: str | None = None) -> str:
        """``"restart"`` or ``"swap"`` for ``category`` (explicit) or its root-cause ``group``."""
        explicit = dict(self.category_recovery)
        if category is not None and category in explicit:
            return explicit[category]
        return "restart" if group in self.restart_groups else "swap"

    def to_json(self) -> str:
        """Return the rules as a JSON string (a netCDF-safe attribute).

        The per-category keys appear only when set, so rules without them keep their record.
        """
        d: dict[str, Any] = {
            "hang_categories": list(self.hang_categories),
            "restart_groups": list(self.restart_groups),
            "hang_detection_hours": self.hang_detection_hours,
        }
        if self.category_recovery:
            d["category_recovery"] = dict(self.category_recovery)
        if self.category_detection_hours:
            d["category_detection_hours"] = dict(self.category_detection_hours)
        return json.dumps(d)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], default: RecoveryRules) -> RecoveryRules:
        """Return the rules recorded in ``attrs["recovery_rules"]`` (JSON), else ``default``."""
        text = attrs.get("recovery_rules", "")
        if not text:
            return default
        try:
            d = json.loads(text)
            return cls(
                tuple(str(c) for c in d["hang_categories"]),
                tuple(str(g) for g in d["restart_groups"]),
                float(d.get("hang_detection_hours", NCCL_DEFAULT_TIMEOUT_HOURS)),
                tuple((str(c), str(r)) for c, r in d.get("category_recovery", {}).items()),
                tuple((str(c), float(h)) for c, h in d.get("category_detection_hours", {}).items()),
            )
        except (TypeError, ValueError, KeyError) as e:
            raise ValueError(f"attrs['recovery_rules'] is not a relmc rule record: {e}") from None


#: Llama 3 405B: NCCL watchdog timeouts and switch/cable faults hang; the "Dependency" and
#: "Unknown" groups need only a restart; GPU, Host, Network and Unplanned Maintenance faults
#: take a host out of the job.
LLAMA3_RULES = RecoveryRules(
    hang_categories=("NCCL Watchdog Timeouts", "Network Switch/Cable"),
    restart_groups=("Dependency", "Unknown", ""),
)

#: Rules for data that state none (a user's counts): Llama 3 Table 5's taxonomy.
DEFAULT_RULES = LLAMA3_RULES


def default_failures() -> FailureModel:
    """Llama 3 405B point rates (count / exposure) with planned maintenance, as relmc's default."""
    from relmc.datasets import load_dataset
    from relmc.scenario import FailureModel

    return FailureModel.from_counts(load_dataset("llama3-405b"))


def default_scenario(**kwargs: Any) -> Scenario:
    """Llama 3 point rates on 16,384 GPUs with the default policy (fields overridable)."""
    from relmc.scenario import Scenario

    if kwargs.get("failures") is None:
        kwargs["failures"] = default_failures()
    return Scenario(**kwargs)


@dataclass(frozen=True)
class AssumedDefault:
    """A scenario default that no published number stands behind.

    Parameters
    ----------
    field : str
        Dotted scenario field (``"policy.swap_hours"``).
    what : str
        What it is, in a few words (``"node swap"``).
    flag : str
        The ``relmc`` option that sets it.
    why : str
        Why it is an assumption (what ``SOURCES.md`` does and does not give).
    """

    field: str
    what: str
    flag: str
    why: str


#: Defaults a run uses without a source, most hidden first: with node-swap time and planned
#: downtime at 0, those lost-time causes are exactly zero in every default projection.
ASSUMED_DEFAULTS: tuple[AssumedDefault, ...] = (
    AssumedDefault(
        "policy.swap_hours",
        "node swap",
        "--swap-minutes",
        "no published node-swap time (Llama 3 and the RSC paper give none); 0 makes a hardware "
        "failure cost no more than a software one",
    ),
    AssumedDefault(
        "failures.maintenance_hours",
        "planned downtime",
        "--maintenance-minutes",
        "Llama 3 counts 47 planned interruptions in 54 days but gives no downtime; 0 makes "
        "each cost only its checkpoint and restart",
    ),
    AssumedDefault(
        "policy.restart_hours",
        "restart",
        "--restart-minutes",
        "the RSC paper quotes restart overheads of 5-20 min [S]; Llama 3 publishes none",
    ),
    AssumedDefault(
        "policy.checkpoint_interval",
        "checkpoint interval",
        "--checkpoint-interval-minutes",
        "Llama 3 publishes no checkpoint interval",
    ),
    AssumedDefault(
        "policy.snapshot_hours",
        "blocking snapshot",
        "--snapshot-minutes",
        "Llama 3 publishes no checkpoint write time",
    ),
    AssumedDefault(
        "policy.persist_hours",
        "background persist",
        "--persist-minutes",
        "no published persist time; 0 makes a snapshot durable at once",
    ),
    AssumedDefault(
        "policy.repair_hours",
        "node repair",
        "--repair-hours",
        "no published repair time (used only with a finite spare pool)",
    ),
)


def _default_of(field: str) -> Any:
    from relmc.scenario import FailureModel, Policy

    section, name = field.split(".")
    cls = Policy if section == "policy" else FailureModel
    return next(f.default for f in dataclasses.fields(cls) if f.name == name)


def assumed_values(
    scenario: Scenario, given: Iterable[str] = ()
) -> list[tuple[AssumedDefault, Any]]:
    """Return the assumed defaults a scenario runs with, and their values.

    Parameters
    ----------
    scenario : Scenario
        The scenario of a run.
    given : iterable of str
        Dotted fields the user set (a flag, a TOML field): never reported, whatever their
        value.

    Returns
    -------
    list of (AssumedDefault, value)
        In :data:`ASSUMED_DEFAULTS` order, the fields that still hold their dataclass default
        and matter to this scenario: ``failures.maintenance_hours`` only with planned
        maintenance, ``policy.swap_hours`` only when a category needs a swap,
        ``policy.repair_hours`` only with a finite spare pool. Values in the field's own
        units (hours; the interval may be a rule's name).
    """
    given = set(given)
    fm, pol = scenario.failures, scenario.policy
    relevant = {
        "failures.maintenance_hours": fm.maintenance_rate > 0,
        "policy.swap_hours": any(c.recovery == "swap" for c in fm.categories),
        "policy.repair_hours": pol.n_spares is not None,
    }
    out = []
    for a in ASSUMED_DEFAULTS:
        if a.field in given or not relevant.get(a.field, True):
            continue
        section, name = a.field.split(".")
        value = getattr(getattr(scenario, section), name)
        if value == _default_of(a.field):
            out.append((a, value))
    return out
