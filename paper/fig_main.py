"""Figure: the four-panel summary (the figure `relmc project` writes), baseline policy."""

from common import figure_args, load_posterior, load_projection, output

from relmc.plots import main_figure

args = figure_args(__doc__)
with output(args.out, "main.png") as tmp:
    main_figure(load_projection(args.results), load_posterior(args.results), tmp)
