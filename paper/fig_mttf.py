"""Figure: job MTTF vs cluster size with published points."""

from common import figure_args, load_projection

from relmc.plots import plot_mttf

args = figure_args(__doc__)
plot_mttf(load_projection(args.results), args.out / "mttf.png")
print(f"wrote {args.out / 'mttf.png'}")
