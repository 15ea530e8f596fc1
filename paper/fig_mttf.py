"""Figure: job MTTF vs cluster size with published points."""

from common import figure_args, load_projection, output

from relmc.plots import plot_mttf

args = figure_args(__doc__)
with output(args.out, "mttf.png") as tmp:
    plot_mttf(load_projection(args.results), tmp)
