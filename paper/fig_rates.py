"""Figure: failure-rate posterior by category (forest plot)."""

from common import figure_args, load_posterior

from relmc.plots import plot_rates

args = figure_args(__doc__)
plot_rates(load_posterior(args.results), args.out / "rates.png")
print(f"wrote {args.out / 'rates.png'}")
