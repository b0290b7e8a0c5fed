# The specification (spec/): register maps, memory map, protocol layouts, tables, board constants.
#   make generate        rewrite the generated C headers (firmware/include) and docs tables
#   make check-generated fail when a generated file is stale

.PHONY: generate check-generated

## generate     rewrite firmware/include/*.h, docs/registers.md, docs/protocol.md and the tables of docs/soc.md from spec/
generate: setup
	$(PY) -m slitherlink.spec.generate

## check-generated  list the generated files that are stale (exit 1 if any)
check-generated: setup
	$(PY) -m slitherlink.spec.generate --check
