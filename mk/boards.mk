# Boards and bitstreams (boards/, docs/boards.md).
#   make bitstream                 the default target: Arty A7-35T (XC7A35T), both engines,
#                                  10x10, band 1: build tree + utilisation; the bitstream where
#                                  Vivado or openXC7 is installed
#   make bitstream BOARD=ulx3s     ULX3S-85F (ECP5): a real bitstream with the open flow
#   make program [BOARD=ulx3s]     load it with openFPGALoader (BITSTREAM=file.bit: another one)
#   make evidence                  add build/ulx3s/summary.json (and build/arty/summary.json) to
#                                  boards/evidence.json; rewrite docs/boards.md's table and the
#                                  README's paragraph on the default build
# The target (spec/target.py; what is not given is the board's default build), the same for
# make bitstream and make soc-verilog: BOARD=arty|ulx3s, CORE=soc|soc-deduce|soc-both (and
# for make bitstream the fixtures accelerator|loopback), ROWS=, COLS= (maximum grid), BAND=,
# LABEL_NETWORK=small|fast, TRAIL_DEPTH=, CLOCK= (MHz), BAUD=.
# Build options: FORCE_CLOCK=1 (Arty: build a clock the ECP5 evidence does not support),
#          CC_KIND=zig|gcc (firmware), BUILD_DIR=,
#          HIDE_NAMES=1 (ECP5: works around Yosys 0.70's ABC9 assertion on some builds),
#          PNR_OPTS= (ECP5: nextpnr-ecp5's placement options instead of the timing-weighted
#          ones, boards.build.ECP5_PLACEMENT), SEED= (ECP5: this placement seed
#          alone; by default 1, then 2 and 3 while timing is not met).

BOARD ?= arty
TARGET_ARGS = --board $(BOARD) $(if $(CORE),--core $(CORE)) $(if $(ROWS),--rows $(ROWS)) \
	$(if $(COLS),--cols $(COLS)) $(if $(BAND),--band $(BAND)) \
	$(if $(LABEL_NETWORK),--label-network $(LABEL_NETWORK)) \
	$(if $(TRAIL_DEPTH),--trail-depth $(TRAIL_DEPTH)) $(if $(CLOCK),--clock $(CLOCK)) \
	$(if $(BAUD),--baud $(BAUD))
BITSTREAM_ARGS = $(TARGET_ARGS) $(if $(FORCE_CLOCK),--force-clock) \
	$(if $(HIDE_NAMES),--hide-names) $(if $(PNR_OPTS),--pnr-opts "$(PNR_OPTS)") \
	$(if $(SEED),--seed $(SEED)) \
	$(if $(CC_KIND),--cc $(CC_KIND)) $(if $(BUILD_DIR),--build-dir $(BUILD_DIR))

.PHONY: bitstream program evidence

## bitstream       FPGA image of a target: BOARD=arty (default) or ulx3s; CORE= ROWS= COLS= BAND= CLOCK= BAUD= FORCE_CLOCK=1
bitstream: setup
	$(PY) -m slitherlink.boards.build $(BITSTREAM_ARGS)

## program         load build/<board>/top.bit into the board with openFPGALoader (BOARD=arty|ulx3s)
program: setup
	$(PY) -m slitherlink.boards.program --board $(BOARD) $(if $(BUILD_DIR),--build-dir $(BUILD_DIR)) \
		$(if $(BITSTREAM),--bitstream $(BITSTREAM))

## evidence        add the builds' summary.json (SUMMARIES=, default build/*/summary.json) to boards/evidence.json; rewrite docs/boards.md's table and the README's default build
SUMMARIES ?= $(wildcard build/ulx3s/summary.json build/arty/summary.json)
evidence: setup
	$(PY) -m slitherlink.boards.evidence $(if $(SUMMARIES),--add $(SUMMARIES))
