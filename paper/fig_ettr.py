"""Figure: ETTR vs cluster size under each restart / checkpoint policy."""

from common import LABELS, POLICIES, figure_args, load_projection, output

from relmc.plots import plot_ettr

args = figure_args(__doc__)
projections = {LABELS[name]: load_projection(args.results, name) for name in POLICIES}
with output(args.out, "ettr.png") as tmp:
    plot_ettr(projections, tmp)
