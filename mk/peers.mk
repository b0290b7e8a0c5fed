# Software peers (host/engines: sat, z3, ip, cpsat, model) on the puzzle corpus.
# Options go through PEERS_ARGS, e.g.
#   make bench-peers PEERS_ARGS="--sizes 10x10 --per-class 20 --engines sat,cpsat"

PEERS_ARGS ?=

.PHONY: bench-peers

## bench-peers     benchmark the software peers (model, sat, z3, ip, cpsat) on a corpus sample; PEERS_ARGS="..." for options
bench-peers: setup
	$(PY) -m slitherlink.bench.peers $(PEERS_ARGS)
