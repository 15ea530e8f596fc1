"""Figure: failure-rate posterior by category (forest plot)."""

from common import figure_args, load_posterior, output

from relmc.plots import plot_rates

args = figure_args(__doc__)
with output(args.out, "rates.png") as tmp:
    plot_rates(load_posterior(args.results), tmp)
