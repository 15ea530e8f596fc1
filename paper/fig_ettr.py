"""Figure: ETTR vs cluster size under each restart / checkpoint policy."""

from common import LABELS, POLICIES, figure_args, load_projection

from relmc.plots import plot_ettr

args = figure_args(__doc__)
projections = {LABELS[name]: load_projection(args.results, name) for name in POLICIES}
plot_ettr(projections, args.out / "ettr.png")
print(f"wrote {args.out / 'ettr.png'}")
