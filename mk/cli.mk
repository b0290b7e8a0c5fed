# host/solve.py: puzzle formats, renderers, the command line (host/formats.py,
# host/render.py, host/cli.py).

SOLVE_ARGS ?=
PUZZLE ?= $(DEMO_PUZZLE)

.PHONY: solve test-cli

## solve        solve PUZZLE=<file, dir, Loopy id or puzz.link URL> (SOLVE_ARGS="--engine model -u -f unicode")
solve: setup
	$(PY) host/solve.py $(SOLVE_ARGS) $(PUZZLE)

## test-cli     the tests of the puzzle formats, renderers and host/solve.py
test-cli: setup
	$(PY) -m pytest -n 2 -q tests/test_formats.py tests/test_render.py tests/test_cli.py
