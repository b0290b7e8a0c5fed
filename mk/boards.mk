# Boards and bitstreams (boards/, docs/boards.md).
#   make bitstream                 Arty A7-35T (XC7A35T): build tree + utilisation; the
#                                  bitstream where Vivado or openXC7 is installed
#   make bitstream BOARD=ulx3s     ULX3S-85F (ECP5): a real bitstream with the open flow
#   make program [BOARD=ulx3s]     load it with openFPGALoader (BITSTREAM=file.bit: another one)
# Options: ROWS=, COLS= (maximum grid), CLOCK= (MHz), BAUD= (default 115200),
#          CORE=soc|soc-deduce|soc-both|accelerator|loopback, BAND= (soc-deduce, soc-both:
#          the band deduction engine, BAND framed rows a word), LABEL_NETWORK=small|fast (with
#          BAND: the label rows' network; default small on the arty, fast on the ulx3s),
#          CC_KIND=zig|gcc (firmware), BUILD_DIR=,
#          HIDE_NAMES=1 (ECP5: works around Yosys 0.70's ABC9 assertion on some builds),
#          PNR_OPTS= (ECP5: more nextpnr-ecp5 options).

BOARD ?= arty
BITSTREAM_ARGS = --board $(BOARD) $(if $(ROWS),--rows $(ROWS)) $(if $(COLS),--cols $(COLS)) \
	$(if $(CLOCK),--clock $(CLOCK)) $(if $(BAUD),--baud $(BAUD)) $(if $(CORE),--core $(CORE)) \
	$(if $(BAND),--band $(BAND)) $(if $(LABEL_NETWORK),--label-network $(LABEL_NETWORK)) \
	$(if $(HIDE_NAMES),--hide-names) $(if $(PNR_OPTS),--pnr-opts "$(PNR_OPTS)") \
	$(if $(CC_KIND),--cc $(CC_KIND)) $(if $(BUILD_DIR),--build-dir $(BUILD_DIR))

.PHONY: bitstream program

## bitstream       FPGA image for BOARD=arty (default; XC7A35T) or BOARD=ulx3s (ECP5); ROWS= COLS= CLOCK= BAUD=
bitstream: setup
	$(PY) -m slitherlink.boards.build $(BITSTREAM_ARGS)

## program         load build/<board>/top.bit into the board with openFPGALoader (BOARD=arty|ulx3s)
program: setup
	$(PY) -m slitherlink.boards.program --board $(BOARD) $(if $(BUILD_DIR),--build-dir $(BUILD_DIR)) \
		$(if $(BITSTREAM),--bitstream $(BITSTREAM))
