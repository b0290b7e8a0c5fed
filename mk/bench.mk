# The hardware benchmark (bench/hardware.py): the SoC on virtual boards (exact cycles), the
# default mode (deduce) on the default build by default, beside the software peers and the
# paper's figures (bench/paper.py); see docs/benchmark.md.  Options go through BENCH_ARGS, e.g.
#   make bench BENCH_ARGS="--sizes 10x10 --per-class all --per-source 0"
#   make bench BENCH_ARGS="--per-class 4 --max-cells 1200"        # a build per size class
#   make bench BENCH_ARGS="--mode paper --max-checks 50000 --jobs 1"

BENCH_ARGS ?=

.PHONY: bench bench-model

## bench           benchmark the hardware (virtual boards, exact cycles; deduce mode on the default build) and the peers on a corpus sample; BENCH_ARGS="..." for options
bench: setup
	$(PY) -m slitherlink.bench.hardware $(BENCH_ARGS)

# The deduction engine's golden model on the corpus (no hardware): its search and its cycles
# per band height.  Options go through MODEL_ARGS, e.g.
#   make bench-model MODEL_ARGS="--max-cells 100 --bands 1,2"

MODEL_ARGS ?= --max-cells 100 --bands 1

## bench-model     the deduction engine's band model on the corpus (no hardware): decisions, probes, cycles per band height; MODEL_ARGS="..." for options
bench-model: setup
	$(PY) -m slitherlink.bench.band_model $(MODEL_ARGS)

# The link benchmark (bench/stream.py): puzzles streamed through the virtual board at the
# rates its build offers, in the board's own cycles, beside sat on one and two cores.
#   make bench-stream STREAM_ARGS="--per-class 20 --rates all"
#   make bench-stream STREAM_ARGS="--classes 30x30 --core soc-deduce --label-network fast --clock evidence"
.PHONY: bench-stream

## bench-stream    stream puzzles through the virtual board at each rate its build offers (exact device time), beside sat on 1 and 2 cores; STREAM_ARGS="..." for options
bench-stream: setup
	$(PY) -m slitherlink.bench.stream $(STREAM_ARGS)

# The lossy-link benchmark (bench/lossy.py): solves through a link that damages a share of
# its bytes, the virtual board (the real firmware) and the fake device side by side.
#   make bench-lossy LOSSY_ARGS="--devices vboard --losses 0.05 --puzzles 20 --mode deduce"
LOSSY_ARGS ?= --mode deduce
.PHONY: bench-lossy

## bench-lossy     solves through a lossy link (0.1 %, 1 %, 5 % of bytes damaged), virtual board and fake device side by side; LOSSY_ARGS="..." for options
bench-lossy: setup
	$(PY) -m slitherlink.bench.lossy $(LOSSY_ARGS)
