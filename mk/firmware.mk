# The SoC (hw/soc.py), its C firmware (firmware/, built by firmware/build.py) and the UART
# protocol (spec/protocol.py).
#   make firmware                  build the firmware image for ROWS x COLS (default 10x10)
#   make firmware CC_KIND=gcc      ... with riscv64-unknown-elf-gcc instead of ziglang
#   make soc-verilog               a target's SoC as Verilog (build/soc/slk_soc.v; the variables of
#                                  make bitstream, mk/boards.mk) + picorv32.v path
#   make protocol-docs             regenerate docs/protocol.md (and every generated file: make generate)
#   make bench-soc                 cycles per puzzle on the simulated SoC (slow)

FW_ROWS ?= $(or $(ROWS),10)
FW_COLS ?= $(or $(COLS),10)
CC_KIND ?= zig

.PHONY: firmware soc-verilog protocol-docs bench-soc

## firmware     build the SoC firmware for ROWS x COLS (default 10x10) into build/firmware/; CC_KIND=zig|gcc
firmware: setup
	$(PY) -m slitherlink.firmware.build --max-rows $(FW_ROWS) --max-cols $(FW_COLS) --cc $(CC_KIND)

## soc-verilog  write a target's SoC as Verilog to build/soc/slk_soc.v (the target of make bitstream: BOARD= CORE= ROWS= COLS= BAND= CLOCK= BAUD=)
soc-verilog: setup
	$(PY) -m slitherlink.boards.verilog $(TARGET_ARGS) --cc $(CC_KIND) --out build/soc/slk_soc.v

## protocol-docs  regenerate docs/protocol.md from spec/protocol.py (same as make generate)
protocol-docs: generate


## bench-soc    cycles per check of the simulated SoC on more puzzles (slow; writes docs/soc-cycles.md)
bench-soc: setup
	$(PY) -m slitherlink.bench.soc_cycles --out docs/soc-cycles.md
