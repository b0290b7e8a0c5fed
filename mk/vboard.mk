# The virtual board (sim/vboard/): the SoC in Verilator, its UART on a
# pseudo-terminal, which the device session (host/device/) starts.  See docs/host.md.

VBOARD_ARGS ?=

.PHONY: vboard vboard-run

## vboard       build the virtual board into build/vboard/ (only when an input changed)
vboard: setup
	$(PY) -m slitherlink.sim.vboard build

## vboard-run   start a virtual board, print its /dev/pts/N (VBOARD_ARGS="--trace board.vcd")
vboard-run: setup
	$(PY) -m slitherlink.sim.vboard run $(VBOARD_ARGS)

