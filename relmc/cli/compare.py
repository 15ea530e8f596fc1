"""``relmc compare``: policies as scenario overrides, compared on paired trials."""

from __future__ import annotations

import argparse
import dataclasses
import re
from typing import Any

from relmc._io import write_netcdf
from relmc.cli import inputs, options, output
from relmc.cli.output import (
    model_text,
    policy_text,
    recovery_line,
    say,
    table,
)

EPILOG = """\
Simulates the base scenario (the data, model and scenario options below) and each --policy on
the same trials: trial i uses the same posterior draw and the same random stream under every
policy, so each gain is a per-trial difference, with far narrower bands than the difference of
two separate projections. Prints each policy's ETTR (median [90%]) and its paired gain over
the baseline (median [90%], mean +- Monte Carlo SE); writes DIR/compare.nc
(relmc.compare() result: per-trial ETTR with the draw of each trial, and the summaries).

A policy is NAME:FIELD=VALUE[,FIELD=VALUE...]. FIELD is a dotted scenario field as in
relmc.scenario.replace_path (policy.restart_hours, job.compute_hours,
failures.categories.NAME.detection_hours, failures.maintenance_rate, ...), or a field name
alone when only one section has it (restart_hours). A field ending in _hours may be given in
minutes or days instead (restart_minutes=2, compute_days=30). VALUE is a number, young or
daly (checkpoint_interval), unlimited (n_spares), true or false, or the text a text field
takes (failures.categories.NAME.kind=sdc, ...domain=rack, repair_distribution=fixed). The fit
gives the categories' rates: change one with failures.categories.NAME.rate_multiplier=0.5
(halves its events). Every policy runs at --n-gpus; with several sizes (--n-gpus 2048,16384)
at each of them (ascending, each once), one table row per size and policy, and compare.nc
gains an n_gpus dim (its scenarios attribute records them at the first size). The base
scenario is always included, as "baseline"; --baseline NAME measures gains against another.

examples:
  relmc compare --policy fast-restart:restart_minutes=2
  relmc compare --n-gpus 100000 --policy restart-2min:restart_minutes=2 \\
      --policy ckpt-5min:checkpoint_interval_minutes=5 \\
      --policy both:restart_minutes=2,checkpoint_interval_minutes=5
  relmc compare --policy daly:checkpoint_interval=daly --snapshot-minutes 0.5 --seed 1
  relmc compare --n-gpus 16384,131072 --policy fast-restart:restart_minutes=2

example scripts, the same from Python (installed with relmc; 'relmc examples --copy DIR' copies
them): what_if.py (restart and checkpoint policies at 100,000 GPUs), levers.py (lemon
detection, diagnosis, standbys, spares, in-memory checkpoints)"""

BASELINE = "baseline"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
_SECTIONS = ("policy", "job", "cluster", "failures")


def add_parser(sub) -> None:
    """Register ``relmc compare``."""
    p = options.add_subcommand(
        sub, "compare", "compare policies on paired trials: ETTR and gain over a baseline", EPILOG
    )
    p.add_argument(
        "--policy",
        action=options.FieldAppend,
        field="scenarios",
        type=parse_policy,
        default=[],
        metavar="NAME:FIELD=VALUE[,...]",
        help="a policy to compare with the baseline (repeatable; at least one)",
    )
    p.add_argument(
        "--baseline",
        action=options.Field,
        metavar="NAME",
        help=f"the policy gains are measured against (default: {BASELINE}, the base scenario)",
    )
    p.add_argument(
        "--n-gpus",
        type=options.int_list,
        action=options.Field,
        default=[16384],
        metavar="N,N,...",
        help="cluster size(s) in GPUs, each in [1, 1e8]; several compare the policies at each "
        "size, on the same trials at every size (default: 16384)",
    )
    options.add_data_options(p)
    options.add_run_options(p, n_trials=2000, per="policy", min_trials=2)
    options.add_scenario_options(p, file=True)
    output.add_summary_options(p)
    p.set_defaults(func=run)


# --------------------------------------------------------------------------------------------
# NAME:FIELD=VALUE,... -> (name, {dotted path: value})


def _field_names() -> dict[str, list[str]]:
    """Section(s) of each plain field name of the scenario dataclasses."""
    from relmc.scenario import Cluster, FailureModel, Job, Policy

    out: dict[str, list[str]] = {}
    for section, cls in zip(_SECTIONS, (Policy, Job, Cluster, FailureModel), strict=True):
        for f in dataclasses.fields(cls):
            if f.name != "categories":
                out.setdefault(f.name, []).append(section)
    return out


def _value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("unlimited", "none"):
        return None
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(t.replace("_", "") if conv is int else t)
        except ValueError:
            pass
    return t


def _path_and_value(key: str, text: str) -> tuple[str, Any]:
    """Resolve ``key`` (dotted or plain; ``_minutes``/``_days`` variants) and convert ``text``."""
    from relmc.scenario import category_path

    value = _value(text)
    scale = 1.0
    head, _, leaf = key.rpartition(".")
    if leaf == "checkpoint_interval_hours":  # the field is in hours already
        leaf = "checkpoint_interval"
    for suffix, factor in (("_minutes", 1 / 60), ("_days", 24.0)):
        if leaf.endswith(suffix):
            stem = leaf[: -len(suffix)]
            leaf = "checkpoint_interval" if stem == "checkpoint_interval" else stem + "_hours"
            scale = factor
            break
    if scale != 1.0:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise argparse.ArgumentTypeError(f"{key} must be a number; got {text!r}")
        value = options.Given.of(float(value) * scale, f"{key}={text.strip()}")
    if not head:
        sections = _field_names().get(leaf, [])
        if len(sections) != 1:
            from relmc.scenario import field_suggestion

            found = field_suggestion(leaf, set(_field_names()))
            if not sections and found:
                raise argparse.ArgumentTypeError(
                    f"unknown field {key!r} (did you mean {found[0]!r}{found[1]}?)"
                )
            known = ", ".join(sorted(_field_names()))
            raise argparse.ArgumentTypeError(
                f"unknown field {key!r}; use a dotted field (policy.restart_hours) or one "
                f"of {known}"
            )
        head = sections[0]
    path = f"{head}.{leaf}"
    if path == "cluster.n_gpus":
        raise argparse.ArgumentTypeError(
            "n_gpus: every policy runs at --n-gpus; give several sizes there "
            "(--n-gpus A,B,...) to compare the policies at each"
        )
    parts = category_path(path)  # (a category's rate: refused where its category is known)
    if parts is not None and parts[1] == "rate_profile":  # 24 or 168 numbers, not one value
        raise argparse.ArgumentTypeError(
            f"{key}: a rate profile is 24 or 168 numbers, which --policy (one value per field) "
            "cannot take; set it in a scenario TOML (relmc simulate, a sweep's [base]), or use "
            f"failures.categories.{parts[0]}.diurnal_amplitude / diurnal_peak_hour here"
        )
    return path, value


def parse_policy(text: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME:FIELD=VALUE[,FIELD=VALUE...]`` into ``(name, {dotted field: value})``."""
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not sep or not _NAME.fullmatch(name):
        raise argparse.ArgumentTypeError(
            f"must be NAME:FIELD=VALUE[,FIELD=VALUE...] with NAME of letters, digits, _.+-; "
            f"got {text!r}"
        )
    fields: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise argparse.ArgumentTypeError(f"{name}: expected FIELD=VALUE; got {item!r}")
        path, v = _path_and_value(key.strip(), value)
        if path in fields:
            raise argparse.ArgumentTypeError(f"{name}: {path} is given twice")
        fields[path] = v
    return name, fields


parse_policy.__name__ = "policy"  # argparse: "invalid policy value"


# --------------------------------------------------------------------------------------------


def _scenarios(base, policies: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Return the baseline and each policy's scenario, validated (errors name the policy)."""
    from relmc.scenario import category_path, replace_path

    out = {BASELINE: base}
    for name, fields in policies:
        if name in out:
            raise ValueError(f"--policy: the name {name!r} is used twice (or is {BASELINE!r})")
        sc = base
        for path, value in fields.items():
            if (parts := category_path(path)) is not None:
                cat, field = parts
                if cat != "*" and cat not in sc.failures.names:
                    raise ValueError(
                        f"--policy {name}: {path}: the data have no category {cat!r}; known: "
                        f"{list(sc.failures.names)}. A policy changes the data's categories "
                        "and cannot add one: a straggler or SDC category needs a scenario "
                        "TOML (relmc simulate, a sweep's [base]) or the API (relmc.compare)"
                    )
                if field == "rate":
                    raise ValueError(
                        f"--policy {name}: {path}: the fit gives every category's rate, so a "
                        f"policy cannot set it; use failures.categories.{cat}.rate_multiplier "
                        "(e.g. 2 to double its events)"
                    )
            converted = isinstance(value, options.Given)  # from minutes or days: say so
            try:
                sc = replace_path(sc, path, float(value) if converted else value)
            except ValueError as e:
                given = f" (given as {value.text})" if converted else ""
                raise ValueError(f"--policy {name}: {e}{given}") from None
        out[name] = sc
    return out


def check_policies(args: argparse.Namespace) -> None:
    """Validate ``--policy``/``--baseline`` against the default scenario, before any fit."""
    from relmc.scenario import Scenario

    if not args.policy:
        raise ValueError("--policy: give at least one policy to compare with the baseline")
    # category fields name the data's categories, known only after loading; checked then
    general = [
        (name, {k: v for k, v in f.items() if not k.startswith("failures.categories.")})
        for name, f in args.policy
    ]
    names = _scenarios(Scenario.default(), general)
    if args.baseline is not None and args.baseline not in names:
        raise ValueError(f"--baseline must be one of {list(names)}; got {args.baseline!r}")


def run(args: argparse.Namespace) -> int:
    """Run ``relmc compare``."""
    from relmc.comparison import compare
    from relmc.projection import check_sizes, default_scenario
    from relmc.scenario import FailureModel, Scenario

    ov = inputs.check_scenario_options(args)
    file = inputs.read_scenario_file(args)
    sizes = check_sizes(args.n_gpus)
    check_policies(args)
    outputs = inputs.check_out(
        args.out, ["compare.nc", *output.summary_names(args, ["compare.nc"])]
    )
    seed = inputs.root_seed(args)
    data = None
    if args.posterior is None:  # the policies' category fields checked before the fit
        data = inputs.load_data(args)
        inputs.check_scalable(args, data, "compare")
        fitted = Scenario(failures=FailureModel.from_counts(data))
        _scenarios(inputs.over_scenario(fitted, file, args.scenario), args.policy)
    posterior, data = inputs.posterior_and_data(args, seed, "compare", data=data)
    base = inputs.over_scenario(default_scenario(posterior, data), file, args.scenario)
    base = inputs.apply_overrides(base, ov)
    scenarios = _scenarios(base, args.policy)
    ds = compare(
        scenarios,
        posterior=posterior,
        baseline=args.baseline,
        n_gpus=sizes[0] if len(sizes) == 1 else sizes,
        n_trials=args.n_trials,
        seed=seed,
        n_threads=args.n_threads,
    )
    with outputs.stage() as st:
        ds.attrs["relmc_run_id"] = st.run_id
        write_netcdf(ds, st.path("compare.nc"))
        output.write_summaries(st, args, ds, "compare")

    say(f"relmc compare: {model_text(args, posterior, data)}")
    recovery = recovery_line(args, data, base)
    if recovery:
        say(recovery)
    say(f"{', '.join(f'{n:,}' for n in sizes)} GPUs; baseline policy: {policy_text(base)}")
    if file:
        say(f"scenario file: {args.scenario} ({', '.join(sorted(file))})")
    for name, fields in args.policy:
        changes = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in fields.items()
        )
        say(f"  {name}: {changes or 'no change'}")
    ruled = [
        f"{name} {_minutes(ds['checkpoint_interval_hours'].sel(scenario=name))} min"
        for name, sc in scenarios.items()
        if isinstance(sc.policy.checkpoint_interval, str)
    ]
    if ruled:
        at = f" (at {' / '.join(f'{n:,}' for n in sizes)} GPUs)" if len(sizes) > 1 else ""
        say(f"checkpoint intervals the rules chose{at}: {', '.join(ruled)}")
    say(f"{args.n_trials:,} paired trials per policy, seed {seed}")
    say()
    say(comparison_table(ds))
    say()
    say(
        f"median [90% interval] over trials; gain = ETTR(policy) - ETTR({ds.attrs['baseline']}) "
        "per trial (same posterior draw and seed), mean +- Monte Carlo SE."
    )
    for line in path_notes(ds):
        say(line)
    say()
    for f in st.written:
        say(f"wrote {f}")
    say(f"run id {st.run_id}")
    output.print_summaries(args, ds, "compare", st.run_id, st.written)
    return 0


def path_notes(ds) -> list[str]:
    """Lines naming the policies whose trials pair with the baseline's by draw only.

    A policy simulated on another kernel path than the baseline (``kernel_path``) draws its
    random numbers differently: its gain's interval then holds both jobs' luck.
    """
    base = ds.attrs["baseline"]
    names, kinds = ds["scenario"].values, ds["kernel_path"].values
    paths = {str(k): str(v) for k, v in zip(names, kinds, strict=True)}
    other = [k for k, v in paths.items() if v != paths[base]]
    if not other:
        return []
    return [
        f"note: {', '.join(other)} ran on another simulation path than {base} "
        f"({', '.join(sorted({paths[k] for k in other}))} against {paths[base]}), so "
        "their trials pair by posterior draw only, not by random stream: the gain's "
        "interval holds both jobs' luck; its mean +- SE is exact. A baseline with the same "
        "feature at a tiny effect (e.g. a diurnal amplitude of 1e-9, a straggler category of "
        "rate 0) runs on the same path, where trials pair as far as the two draw their random "
        "numbers alike."
    ]


def finished_percent(fraction: float) -> str:
    """Format a finished fraction in percent: whole at 0 and 1, else to 0.1 (99.8%, not 100%)."""
    if fraction in (0.0, 1.0):
        return f"{100 * fraction:.0f}%"
    return f"{min(max(100 * fraction, 0.1), 99.9):.1f}%"


def _minutes(hours) -> str:
    """Format a checkpoint interval in minutes; at several sizes one per size, ``a / b``."""
    return " / ".join(f"{60 * float(h):.3g}" for h in hours.values.ravel())


def comparison_table(ds) -> str:
    """Format a :func:`relmc.compare` result: ETTR and paired gain per scenario (and size)."""
    sized = "n_gpus" in ds.dims
    rows = []
    for n in ds["n_gpus"].values if sized else [None]:
        for s in ds["scenario"].values:
            if n is None:
                rows.append(_row(ds.sel(scenario=s), s, ds.attrs["baseline"]))
            else:
                r = ds.sel(scenario=s, n_gpus=n)
                rows.append([f"{int(n):,}", *_row(r, s, ds.attrs["baseline"])])
    header = ["GPUs"] * sized + ["policy", "ETTR", "interruptions/day", "gain"]
    header += ["gain mean +- SE", "finished"]
    return table(header, rows, [True] * sized + [False, True, True, True, True, True])


def _row(r, s, baseline: str) -> list[str]:
    """One scenario's cells at one size."""

    def band(da, sign: str = "") -> str:
        pairs = zip(da["quantile"].values, da.values, strict=True)
        q = {round(float(k), 6): float(v) for k, v in pairs}
        f = f"{{:{sign}.3f}}"
        return f"{f.format(q[0.5])} [{f.format(q[0.05])}, {f.format(q[0.95])}]"

    def per_day(da) -> str:
        pairs = zip(da["quantile"].values, da.values, strict=True)
        q = {round(float(k), 6): float(v) for k, v in pairs}
        return f"{q[0.5]:.3g} [{q[0.05]:.3g}, {q[0.95]:.3g}]"

    base = s == baseline
    return [
        str(s),
        band(r["ettr_quantile"]),
        per_day(r["interruptions_per_day_quantile"]),
        "-" if base else band(r["gain_quantile"], "+"),
        "-" if base else f"{float(r['gain_mean']):+.4f} +- {float(r['gain_se']):.4f}",
        finished_percent(float(r["finished_fraction"])),
    ]
