"""Sweeps: a grid of track parameters (and of cluster setups the pack provisions) over any Rally track, one
race per cell and repetition, resumable, reported as one table per task with a chart and the best cell."""
