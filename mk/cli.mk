# host/solve.py: puzzle formats, renderers, the command line (host/formats.py,
# host/render.py, host/cli.py).

SOLVE_ARGS ?=
PUZZLE ?= $(DEMO_PUZZLE)

.PHONY: solve

## solve        solve PUZZLE=<file, dir, Loopy id or puzz.link URL> (SOLVE_ARGS="--engine model -u -f unicode")
solve: setup
	$(PY) host/solve.py $(SOLVE_ARGS) $(PUZZLE)

