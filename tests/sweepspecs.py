"""Small sweep specs shared by the sweep test files (cheap once the kernel is compiled).

``GRID_12``: 12 cells x 64 trials of a 10-day job (three sizes, a fixed and a rule-based
checkpoint interval, two restart times). ``GRID_6``: 6 cells x 32 trials (two sizes, three
restart times), for the fault tests that rerun a sweep many times.
"""

GRID_12 = """\
seed = 11
n_trials = 64
posterior = "point"
quantiles = [0.1, 0.5, 0.9]
store = "out.zarr"

[base.job]
compute_hours = 240

[axes]
"cluster.n_gpus" = [4096, 32768, 131072]
"policy.checkpoint_interval" = [0.5, "young"]
"policy.restart_hours" = [0.1, 0.4]
"""

GRID_6 = """\
seed = 11
n_trials = 32
posterior = "point"
quantiles = [0.1, 0.5, 0.9]
store = "out.zarr"

[base.job]
compute_hours = 240

[axes]
"cluster.n_gpus" = [4096, 32768]
"policy.restart_hours" = [0.1, 0.4, 0.8]
"""
