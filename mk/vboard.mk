# The virtual board (sim/vboard/): the SoC in Verilator, its UART on a
# pseudo-terminal; and the board engine host/board.py.  See docs/host.md.

VBOARD_ARGS ?=

.PHONY: vboard vboard-run test-vboard

## vboard       build the virtual board into build/vboard/ (only when an input changed)
vboard: setup
	$(PY) -m slitherlink.sim.vboard build

## vboard-run   start a virtual board, print its /dev/pts/N (VBOARD_ARGS="--trace board.vcd")
vboard-run: setup
	$(PY) -m slitherlink.sim.vboard run $(VBOARD_ARGS)

## test-vboard  the tests of the virtual board and the board engine
test-vboard: setup
	$(PY) -m pytest -n 2 -q tests/test_board_host.py tests/test_vboard.py
