# The benchmark (bench/board.py): the hardware on the virtual board (exact cycles),
# beside the software peers and the paper's figures (bench/paper.py); see docs/benchmark.md.
# Options go through BENCH_ARGS, e.g.
#   make bench BENCH_ARGS="--sizes 10x10 --per-class all --per-source 0"
#   make bench BENCH_ARGS="--no-peers --max-checks 50000 --jobs 1"
#   make bench BENCH_ARGS="--mode deduce --sizes 10x10,15x15,20x20 --per-class 10"   # a build per class

BENCH_ARGS ?=

.PHONY: bench

## bench           benchmark the hardware (virtual board, exact cycles) and the peers on a corpus sample; BENCH_ARGS="..." for options
bench: setup
	$(PY) -m slitherlink.bench.board $(BENCH_ARGS)

