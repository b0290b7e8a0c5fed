# The SoC (hw/soc.py), its C firmware (firmware/, built by firmware/build.py) and the UART
# protocol (spec/protocol.py).
#   make firmware                  build the firmware image for ROWS x COLS (default 10x10)
#   make firmware CC_KIND=gcc      ... with riscv64-unknown-elf-gcc instead of ziglang
#   make soc-verilog               the SoC's Verilog top (build/soc/slk_soc.v) + picorv32.v path
#   make protocol-docs             regenerate docs/protocol.md (and every generated file: make generate)
#   make bench-soc                 cycles per puzzle on the simulated SoC (slow)

FW_ROWS ?= $(or $(ROWS),10)
FW_COLS ?= $(or $(COLS),10)
CC_KIND ?= zig
SOC_CLOCK ?= 100000000
SOC_BAUD ?= 115200

.PHONY: firmware soc-verilog protocol-docs bench-soc

## firmware     build the SoC firmware for ROWS x COLS (default 10x10) into build/firmware/; CC_KIND=zig|gcc
firmware: setup
	$(PY) -m slitherlink.firmware.build --max-rows $(FW_ROWS) --max-cols $(FW_COLS) --cc $(CC_KIND)

## soc-verilog  write the SoC's Verilog top to build/soc/slk_soc.v (ROWS= COLS= SOC_CLOCK= SOC_BAUD=)
soc-verilog: setup
	$(PY) -m slitherlink.boards.verilog --max-rows $(FW_ROWS) --max-cols $(FW_COLS) --cc $(CC_KIND) \
		--clock-hz $(SOC_CLOCK) --baud $(SOC_BAUD) --out build/soc/slk_soc.v

## protocol-docs  regenerate docs/protocol.md from spec/protocol.py (same as make generate)
protocol-docs: generate


## bench-soc    cycles per check of the simulated SoC on more puzzles (slow; writes docs/soc-cycles.md)
bench-soc: setup
	$(PY) -m slitherlink.bench.soc_cycles --out docs/soc-cycles.md
