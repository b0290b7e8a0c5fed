# Slitherlink on an FPGA -- build, simulate, test.
#
#   make demo        the main job: solve a bundled puzzle (no board needed)
#   make test        the whole test suite (what CI runs)
#   make test-hw     one part's tests: tests/<part>/ (spec, model, hw, firmware, host, sim,
#                    boards, bench)
#   make help        every target
#
# Each part of the system adds its own targets in mk/<part>.mk.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(abspath $(VENV))/bin/python
SETUP  := $(VENV)/.setup-done
DEMO_PUZZLE ?= examples/loopy_7x7.txt

export PATH := $(abspath $(VENV))/bin:$(PATH)

#: the parts of the system: each has a folder of its own and a folder of tests, tests/<part>/
PARTS := spec model hw firmware host sim boards bench

.PHONY: help setup demo test test-slow clean $(addprefix test-,$(PARTS))
.DEFAULT_GOAL := help

help:
	@echo "make demo         solve $(DEMO_PUZZLE) (set-up included)"
	@echo "make test         run the test suite (set-up included)"
	@echo "make test-slow    also run the slow tests"
	@echo "make test-<part>  the tests of one part, tests/<part>/: $(PARTS)"
	@grep -h '^## ' mk/*.mk 2>/dev/null | sed 's/^## /make /' || true

# Set-up: a virtual environment with the pinned packages of pyproject.toml.
# Nothing here needs root; tools/setup.sh says what to run where it cannot act.
setup: $(SETUP)
$(SETUP): pyproject.toml tools/setup.sh
	@bash tools/setup.sh "$(PYTHON)" "$(VENV)"
	@touch $@

demo: setup
	$(PY) host/solve.py --unique $(DEMO_PUZZLE)

test: setup
	$(PY) -m pytest -n 2 -q

test-slow: setup
	$(PY) -m pytest -n 2 -q -m "slow or not slow"

$(addprefix test-,$(PARTS)): test-%: setup
	$(PY) -m pytest -n 2 -q tests/$*

clean:
	rm -rf build sim_build .pytest_cache

-include mk/*.mk
