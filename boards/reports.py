"""Reading the tools' reports: utilisation and timing, as numbers and as text.

* :func:`xilinx_utilisation` -- cells of a ``synth_xilinx -family xc7`` netlist
  (``stat -json``), grouped the way Vivado's utilisation report groups them;
* :func:`yosys_sta` -- the logic depth of yosys ``sta``'s worst path;
* :func:`nextpnr_ecp5` -- the JSON report of ``nextpnr-ecp5 --report``;
* :func:`vivado_timing` and :func:`nextpnr_xilinx_timing` -- the timing summary of
  a Vivado or an openXC7 place-and-route run.
"""

import json
import re

__all__ = ["xilinx_utilisation", "format_xilinx", "yosys_sta", "nextpnr_ecp5", "format_ecp5",
           "vivado_timing", "nextpnr_xilinx_timing"]

# Slice LUTs each 7-series LUT-RAM / shift-register primitive occupies.
_LUTRAM_LUTS = {
    "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4,
    "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4,
    "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8,
    "SRL16E": 1, "SRLC16E": 1, "SRLC32E": 1,
}
_FFS = ("FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1", "LDCE", "LDPE")


def _stat_cells(stat):
    if isinstance(stat, (str, bytes)):
        stat = json.loads(stat)
    cells = stat.get("design", {}).get("num_cells_by_type")
    if cells is None:  # a single module
        (module,) = stat["modules"].values()
        cells = module["num_cells_by_type"]
    return cells


def xilinx_utilisation(stat, capacity):
    """Utilisation of a 7-series netlist from yosys ``stat -json`` output.

    Returns a dict: ``LUT`` (slice LUTs = logic + memory), ``LUT_logic``,
    ``LUTRAM`` (LUTs used as memory or shift registers), ``FF``, ``RAMB36``,
    ``RAMB18``, ``BRAM36`` (RAMB36 equivalents), ``DSP``, ``CARRY4``, ``MUXF7``,
    ``MUXF8``, ``cells`` (every cell type) and ``percent`` (of ``capacity``).
    """
    cells = {k: v for k, v in _stat_cells(stat).items() if not k.startswith("$")}
    lut_logic = sum(cells.get(f"LUT{i}", 0) for i in range(1, 7))
    lutram = sum(n * _LUTRAM_LUTS[k] for k, n in cells.items() if k in _LUTRAM_LUTS)
    r = {
        "LUT": lut_logic + lutram,
        "LUT_logic": lut_logic,
        "LUTRAM": lutram,
        "FF": sum(cells.get(k, 0) for k in _FFS),
        "RAMB36": cells.get("RAMB36E1", 0),
        "RAMB18": cells.get("RAMB18E1", 0),
        "DSP": cells.get("DSP48E1", 0),
        "CARRY4": cells.get("CARRY4", 0),
        "MUXF7": cells.get("MUXF7", 0),
        "MUXF8": cells.get("MUXF8", 0),
        "cells": dict(sorted(cells.items())),
    }
    r["BRAM36"] = r["RAMB36"] + r["RAMB18"] / 2
    r["percent"] = {}
    for key, cap in capacity.items():
        value = r["BRAM36"] if key == "RAMB36" else r.get(key)
        if value is not None and key != "RAMB18":
            r["percent"][key] = 100.0 * value / cap
    return r


def format_xilinx(u, *, title, device, capacity):
    """The utilisation of :func:`xilinx_utilisation` as a text table."""
    def row(name, value, key=None, note=""):
        cap = capacity.get(key or name)
        pct = f"{100.0 * value / cap:6.1f} %" if cap else "        "
        of = f"/ {cap:>6}" if cap else "        "
        return f"  {name:<18} {value:>8g} {of} {pct}  {note}".rstrip()

    lines = [
        f"{title}: utilisation after yosys synth_xilinx -family xc7 ({device})",
        "(yosys synthesis, before place-and-route; Vivado's own synthesis counts differently)",
        "",
        row("Slice LUTs", u["LUT"], "LUT"),
        row("  LUT as logic", u["LUT_logic"], "-"),
        row("  LUT as memory", u["LUTRAM"], "LUTRAM", "(distributed RAM, shift registers)"),
        row("Slice registers", u["FF"], "FF"),
        row("Block RAM tiles", u["BRAM36"], "RAMB36",
            f"({u['RAMB36']} RAMB36E1 + {u['RAMB18']} RAMB18E1)"),
        row("DSP48E1", u["DSP"], "DSP"),
        row("CARRY4", u["CARRY4"], "CARRY4"),
        row("MUXF7 / MUXF8", u["MUXF7"] + u["MUXF8"], "-", f"({u['MUXF7']} + {u['MUXF8']})"),
        "",
        "cells: " + ", ".join(f"{k} {v}" for k, v in u["cells"].items()),
    ]
    return "\n".join(lines) + "\n"


def yosys_sta(text):
    """``(LUT levels, logic delay in ns)`` of the worst path in yosys ``sta``'s output (its
    arrival times are in ps), or None when it names no path."""
    m = re.search(r"Latest arrival time in '\S+' is (\d+)", text)
    if not m:
        return None
    return len(re.findall(r"\(LUT\d\.", text[m.end():])), int(m.group(1)) / 1000


def nextpnr_ecp5(report):
    """Utilisation and Fmax from the JSON of ``nextpnr-ecp5 --report``.

    Returns ``{"LUT", "FF", "EBR", "DSP", "utilization", "fmax"}``: LUT is
    TRELLIS_COMB (one LUT4 site; carry chains use these too), FF is TRELLIS_FF,
    EBR is DP16KD, DSP is MULT18X18D; ``fmax`` maps each clock to
    ``(achieved MHz, constraint MHz)``.
    """
    if isinstance(report, (str, bytes)):
        report = json.loads(report)
    util = report["utilization"]
    used = lambda k: util.get(k, {}).get("used", 0)  # noqa: E731
    return {
        "LUT": used("TRELLIS_COMB"),
        "FF": used("TRELLIS_FF"),
        "EBR": used("DP16KD"),
        "DSP": used("MULT18X18D"),
        "RAMW": used("TRELLIS_RAMW"),
        "utilization": {k: (v["used"], v["available"]) for k, v in util.items() if v["used"]},
        "fmax": {clock: (v["achieved"], v["constraint"]) for clock, v in report["fmax"].items()},
    }


def format_ecp5(r, *, title, device):
    lines = [f"{title}: utilisation and timing after nextpnr-ecp5 place-and-route ({device})", ""]
    for name, (used, available) in sorted(r["utilization"].items()):
        lines.append(f"  {name:<14} {used:>7} / {available:>6} {100.0 * used / available:6.1f} %")
    lines.append("")
    for clock, (achieved, constraint) in r["fmax"].items():
        verdict = "PASS" if achieved >= constraint else "FAIL"
        lines.append(f"  Fmax {achieved:.2f} MHz for clock {clock} ({verdict} at {constraint:g} MHz)")
    return "\n".join(lines) + "\n"


def vivado_timing(text):
    """``(WNS ns, TNS ns, failing endpoints)`` from Vivado's report_timing_summary,
    or None when the report has no design timing summary."""
    m = re.search(r"Design Timing Summary.*?\n\s*-+\s+-+.*?\n\s*(-?\d+\.\d+)\s+(-?\d+\.\d+)\s+(\d+)",
                  text, re.S)
    if not m:
        return None
    return float(m.group(1)), float(m.group(2)), int(m.group(3))


def nextpnr_xilinx_timing(text):
    """The last ``{clock: (achieved MHz, constraint MHz or None)}`` of a nextpnr log."""
    result = {}
    for m in re.finditer(r"Max frequency for clock '([^']+)': ([\d.]+) MHz"
                         r"(?: \((?:PASS|FAIL) at ([\d.]+) MHz\))?", text):
        result[m.group(1)] = (float(m.group(2)), float(m.group(3)) if m.group(3) else None)
    return result
