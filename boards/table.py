"""The resource table of docs/boards.md from build summaries.

``python -m slitherlink.boards.table build/arty/summary.json build/ulx3s/summary.json ...``
prints one Markdown row per build (the ``summary.json`` that
``python -m slitherlink.boards.build`` writes next to its reports).
"""

import argparse
import json
import sys
from pathlib import Path

__all__ = ["rows", "main"]

HEADER = ("| board (device) | core | max grid | clock | LUTs | FFs | BRAM | DSP | Fmax "
          "| from | source |\n|---|---|---|---|---|---|---|---|---|---|---|")


def _pct(value, capacity):
    return f"{value:g} ({100.0 * value / capacity:.1f} %)" if capacity else f"{value:g}"


def row(summary):
    """One Markdown table row of a build summary."""
    from . import get_board
    board = get_board(summary["board"])
    cap = board.capacity
    u = summary["utilisation"]
    src = summary.get("source") or {}
    source = (src.get("commit") or "?") + (" + local changes" if src.get("uncommitted_changes")
                                           else "")
    grid = f"{summary['max_rows']}x{summary['max_cols']}"
    if board.name == "arty":
        bram = f"{u['BRAM36']:g} RAMB36 ({100.0 * u['BRAM36'] / cap['RAMB36']:.0f} %)"
        pnr = summary.get("place_and_route")
        if pnr and pnr.get("wns_ns") is not None:
            fmax = f"WNS {pnr['wns_ns']:+.3f} ns"
        elif pnr and pnr.get("fmax_mhz"):
            fmax = f"{min(pnr['fmax_mhz'].values()):.1f} MHz"
        else:
            fmax = "n/a (no P&R tool)"
        tool = "yosys synth_xilinx"
        luts = _pct(u["LUT"], cap["LUT"])
    else:
        bram = f"{u['EBR']} DP16KD ({100.0 * u['EBR'] / cap['EBR']:.0f} %)"
        fmax = f"{summary['fmax_worst_mhz']:.1f} MHz"
        tool = "nextpnr-ecp5"
        luts = _pct(u["LUT"], cap["LUT"])
    core = summary["core"]
    if summary.get("band"):
        core += f", `BAND={summary['band']}`"
        if summary.get("label_network"):
            core += f", {summary['label_network']} label network"
    return (f"| {board.title} ({board.device.split(',')[0]}) | {core} | {grid} "
            f"| {summary['clock_mhz']:g} MHz | {luts} | {_pct(u['FF'], cap['FF'])} | {bram} "
            f"| {u['DSP']} | {fmax} | {tool} | {source} |")


def rows(paths):
    return [row(json.loads(Path(p).read_text())) for p in paths]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.boards.table",
                                     description="Markdown rows of build summaries.")
    parser.add_argument("summaries", nargs="+", help="summary.json files of boards.build")
    args = parser.parse_args(argv)
    try:
        lines = rows(args.summaries)
    except (OSError, KeyError, ValueError) as e:
        print(f"boards.table: error: {e}", file=sys.stderr)
        return 1
    print(HEADER)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
