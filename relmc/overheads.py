"""Overheads from first principles: snapshot and restart times, each labelled an assumption.

No published number stands behind Llama 3's checkpoint or restart times (the paper gives
none); what is published are the ingredients: the model's size, the storage's sustained
bandwidth (Tectonic: 2 TB/s sustained, 7 TB/s peak), the model state saved per GPU (1 MB to
4 GB), and Meta's RSC clusters' 5-20 minute restart overheads. The helpers here turn such
ingredients into the hours a :class:`~relmc.Policy` takes, and return an :class:`Assumption`
that says so: its value, the inputs it came from and what it leaves out. Combine them with the
policy's uncertain overheads (``snapshot_spread``, ``restart_spread``, ...; see
:func:`relmc.scenario.spread_of_range`) when the ingredients themselves are uncertain.

>>> from relmc import overheads
>>> a = overheads.snapshot_hours(405e9)  # Llama 3 405B, 14 B/param, 2 TB/s
>>> round(a.value * 3600, 1)  # seconds
2.8
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from relmc.errors import FieldError

__all__ = [
    "Assumption",
    "snapshot_hours",
    "snapshot_hours_from_state",
    "restart_hours",
    "TECTONIC_SUSTAINED_BYTES_PER_S",
    "MIXED_PRECISION_ADAM_BYTES_PER_PARAM",
]

#: Llama 3's storage (Tectonic): "sustainable throughput of 2 TB/s" (Llama 3 paper, §3.3.1).
TECTONIC_SUSTAINED_BYTES_PER_S = 2e12

#: Bytes of training state per parameter with mixed-precision Adam: bf16 weights (2) plus fp32
#: master weights, first and second moments (4 + 4 + 4). A common layout, not a published
#: figure for any model named here: an assumption.
MIXED_PRECISION_ADAM_BYTES_PER_PARAM = 14.0


@dataclass(frozen=True)
class Assumption:
    """An overhead derived from stated inputs: a value in hours that is not a measurement.

    Attributes
    ----------
    name : str
        The policy field it is meant for (``"snapshot_hours"``, ``"restart_hours"``).
    value : float
        Hours.
    inputs : dict
        The inputs it was derived from, by name.
    note : str
        How it was derived and what it leaves out.
    """

    name: str
    value: float
    inputs: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        given = ", ".join(
            f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.inputs.items()
        )
        return (
            f"assumed {self.name} = {self.value:.4g} h ({self.value * 3600:.3g} s) "
            f"from {given}: {self.note}"
        )


def _positive(name: str, value: Any, *, zero: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    x = float(value) if ok else math.nan
    if not (math.isfinite(x) and (x >= 0 if zero else x > 0)):
        rule = ">= 0" if zero else "> 0"
        raise FieldError(name, f"{name} must be a finite number {rule}; got {value!r}")
    return x


def snapshot_hours(
    n_params: float,
    *,
    bytes_per_param: float = MIXED_PRECISION_ADAM_BYTES_PER_PARAM,
    storage_bytes_per_s: float = TECTONIC_SUSTAINED_BYTES_PER_S,
) -> Assumption:
    """Blocking snapshot time if the whole training state is written at the storage's rate.

    ``n_params * bytes_per_param / storage_bytes_per_s``, in hours. A lower bound on a
    synchronous snapshot to storage (no copy to host first, no contention, no metadata), and
    an upper bound on the pause of an asynchronous one that only copies to host memory.

    Parameters
    ----------
    n_params : float
        Model parameters, > 0 (Llama 3 405B: 405e9).
    bytes_per_param : float
        Bytes of state per parameter, > 0 (default 14: mixed-precision Adam, an assumption).
    storage_bytes_per_s : float
        Sustained write bandwidth available to the job, > 0 (default Tectonic's 2 TB/s).
    """
    n = _positive("n_params", n_params)
    b = _positive("bytes_per_param", bytes_per_param)
    bw = _positive("storage_bytes_per_s", storage_bytes_per_s)
    return Assumption(
        "snapshot_hours",
        n * b / bw / 3600.0,
        {"n_params": n, "bytes_per_param": b, "storage_bytes_per_s": bw},
        "the whole training state written at the storage's sustained rate; no host copy, "
        "contention or metadata cost",
    )


def snapshot_hours_from_state(
    bytes_per_gpu: float,
    n_gpus: int,
    *,
    storage_bytes_per_s: float = TECTONIC_SUSTAINED_BYTES_PER_S,
) -> Assumption:
    """Snapshot time from the state each GPU saves: ``bytes_per_gpu * n_gpus / bandwidth``.

    Meta reports 1 MB to 4 GB saved per GPU (Llama 3 paper, §3.3.1); at 4 GB on 16,384 GPUs
    and 2 TB/s that is 32.8 s.

    Parameters
    ----------
    bytes_per_gpu : float
        Bytes saved per GPU, > 0.
    n_gpus : int
        GPUs in the job, > 0.
    storage_bytes_per_s : float
        Sustained write bandwidth, > 0 (default Tectonic's 2 TB/s).
    """
    b = _positive("bytes_per_gpu", bytes_per_gpu)
    n = _positive("n_gpus", n_gpus)
    bw = _positive("storage_bytes_per_s", storage_bytes_per_s)
    return Assumption(
        "snapshot_hours",
        b * n / bw / 3600.0,
        {"bytes_per_gpu": b, "n_gpus": int(n), "storage_bytes_per_s": bw},
        "every GPU's state written at the storage's sustained rate, all at once",
    )


def restart_hours(
    n_gpus: int,
    *,
    exponent: float,
    reference_hours: float = 10.0 / 60.0,
    reference_gpus: int = 4096,
    load_bytes: float = 0.0,
    storage_bytes_per_s: float = TECTONIC_SUSTAINED_BYTES_PER_S,
) -> Assumption:
    """Restart time that grows with the job's size, plus the checkpoint's load.

    ``R(N) = reference_hours * (N / reference_gpus) ** exponent + load_bytes / bandwidth``.
    The start-up part (scheduling, container start, collective initialisation) scales as a
    power of the size; the load part reads the checkpoint at the storage's sustained rate.

    The defaults anchor the start-up at 10 minutes on 4,096 GPUs: the middle of the 5-20
    minute restart overhead Meta reports for its RSC clusters, whose large jobs ran on
    2,048-4,096 GPUs. The ``exponent`` has no published value and must be given (0: no growth;
    fit it from your own restart logs at several sizes).

    Parameters
    ----------
    n_gpus : int
        GPUs in the job, > 0.
    exponent : float
        Growth of the start-up time with size, >= 0.
    reference_hours : float
        Start-up time at ``reference_gpus``, > 0.
    reference_gpus : int
        Size at which the start-up takes ``reference_hours``, > 0.
    load_bytes : float
        Bytes read from storage at the restart (the checkpoint), >= 0.
    storage_bytes_per_s : float
        Sustained read bandwidth, > 0.
    """
    n = _positive("n_gpus", n_gpus)
    g = _positive("exponent", exponent, zero=True)
    r0 = _positive("reference_hours", reference_hours)
    n0 = _positive("reference_gpus", reference_gpus)
    load = _positive("load_bytes", load_bytes, zero=True)
    bw = _positive("storage_bytes_per_s", storage_bytes_per_s)
    value = r0 * (n / n0) ** g + load / bw / 3600.0
    return Assumption(
        "restart_hours",
        value,
        {
            "n_gpus": int(n),
            "exponent": g,
            "reference_hours": r0,
            "reference_gpus": int(n0),
            "load_bytes": load,
            "storage_bytes_per_s": bw,
        },
        "start-up as a power of the size (exponent assumed), plus the checkpoint read at "
        "the storage's sustained rate",
    )
