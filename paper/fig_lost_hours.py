"""Figure: where the wall-clock time goes, by cause, vs cluster size (baseline policy)."""

from common import figure_args, load_projection, output

from relmc.plots import plot_lost_hours

args = figure_args(__doc__)
with output(args.out, "lost_hours.png") as tmp:
    plot_lost_hours(load_projection(args.results), tmp)
