"""The evidence a build's clock needs, and the table of builds in docs/boards.md.

No place-and-route for the Artix-7 runs here (the XC7A35T's part database cannot be had),
so the ECP5's is the timing this project measures: the post-route Fmax of the same core,
grid, band and label network on the ULX3S-85F (nextpnr-ecp5, speed grade -6) is the
evidence for both boards' clocks.  A build has two clocks, the design clock and the UART's
(:data:`spec.uart.UART_CLOCK_RATIO` times it): a record's ``fmax_mhz`` is the fastest
design clock at which both meet timing (the design clock's Fmax, or the UART clock's over
the ratio if lower; ``uart_fmax_mhz`` the UART clock's own), so the rule below holds each
clock to its Fmax with the same margin.  Records measured before the UART had a clock of
its own have no ``uart_fmax_mhz`` (the table says so): their ``fmax_mhz`` is the design
clock's alone.

* The Arty's build may be clocked at most at that Fmax (:data:`MARGIN` 1): the Artix-7's
  -1 fabric is faster than the ECP5's -6 (shorter LUT and routing delays), which is the
  margin.  ``make bitstream`` refuses an Arty clock without such evidence or above it
  (:func:`check_clock`), unless told to go on (``FORCE_CLOCK=1``, ``--force-clock``).
* The ULX3S's default clock keeps 5 % below it (:data:`MARGIN` 1.05); its own builds check
  their own post-route Fmax.

The evidence is one record a build (:data:`EVIDENCE`, ``boards/evidence.json``): its key
(core, grid, band, label network), the ECP5's utilisation and Fmax with the commit, the
asked clock and the nextpnr options, and the XC7A35T's utilisation (yosys) when known.
``python -m slitherlink.boards.evidence --add build/ulx3s/summary.json`` adds a build's
``summary.json`` (either board; the latest measurement of a build replaces the one before)
and rewrites the table of builds in docs/boards.md (:func:`table`) and the README's
paragraph on the default build (:func:`default_build`); ``--check`` says whether both are
current.
"""

import argparse
import json
import sys
import textwrap
from pathlib import Path

from slitherlink.paths import checkout
from slitherlink.spec.target import (ARTY, BOARDS, CORE_ENGINES, CORES, DEFAULT_TARGET,
                                     PAPER_CLOCK_HZ, ULX3S, Target, default_target, mhz)
from slitherlink.spec.uart import LINE_DOMAIN, UART_CLOCK_RATIO

__all__ = ["EVIDENCE", "MARGIN", "ClockUnsupported", "load", "save", "find", "board_clock",
           "supported_clock", "check_clock", "add", "default_clocks", "table", "with_table",
           "default_build", "with_default_build", "main"]

#: The evidence, one record a build.
EVIDENCE = Path(__file__).with_name("evidence.json")

#: A board's build is clocked at most at the ECP5's post-route Fmax divided by this.
MARGIN = {ARTY.name: 1.0, ULX3S.name: 1.05}

#: The marks around the generated table in docs/boards.md.
BEGIN = ("<!-- the table of builds: generated from boards/evidence.json by "
         "python -m slitherlink.boards.evidence; do not edit -->")
END = "<!-- end of the table of builds -->"
#: The marks around the generated paragraph on the default build in README.md.
README_BEGIN = ("<!-- the default build: generated from boards/evidence.json by "
                "python -m slitherlink.boards.evidence; do not edit -->")
README_END = "<!-- end of the default build -->"


class ClockUnsupported(Exception):
    """A clock the evidence does not support; ``str()`` is one line."""


def key(target):
    """A record's key: what the evidence of a build depends on (a paper-only SoC has no
    band or label network)."""
    return {"core": target.core, "max_rows": target.max_rows, "max_cols": target.max_cols,
            "band": target.band if target.deduce else None,
            "label_network": target.label_network if target.deduce else None}


def describe(record):
    """``soc-both 10x10, band 1, small label network``: a record's key in words."""
    text = f"{record['core']} {record['max_rows']}x{record['max_cols']}"
    if record["band"] is not None:
        text += f", band {record['band']}, {record['label_network']} label network"
    return text


def load(path=EVIDENCE):
    """The records (a list of dicts) of ``path``."""
    return json.loads(Path(path).read_text())["builds"]


def _order(record):
    return (list(CORES).index(record["core"]), record["band"] or 0,
            record["label_network"] or "", record["max_rows"] * record["max_cols"],
            record["max_rows"])


def save(records, path=EVIDENCE):
    records = sorted(records, key=_order)
    Path(path).write_text(json.dumps({"builds": records}, indent=1) + "\n")


def find(target, records):
    """The record of ``target``'s build, or None."""
    wanted = key(target)
    return next((r for r in records if {k: r[k] for k in wanted} == wanted), None)


def board_clock(board, record):
    """The largest clock ``board``'s clocking makes within the record's evidence (the
    ECP5's Fmax over :data:`MARGIN`), in Hz; None without ECP5 evidence."""
    from . import board_support
    ecp5 = record.get(ULX3S.name) if record else None
    if not ecp5:
        return None
    return board_support(board).largest_clock(ecp5["fmax_mhz"] * 1e6 / MARGIN[board])


def supported_clock(target, records=None):
    """The clock (Hz) ``target``'s board may run its build at by the ECP5 evidence of the
    same core, grid, band and label network (:func:`board_clock`); None without such
    evidence.  ``records``: the evidence (default: :func:`load`)."""
    return board_clock(target.board, find(target, load() if records is None else records))


def _make_args(target):
    changes = {k: v for k, v in key(target).items() if v is not None}
    names = {"core": "CORE", "max_rows": "ROWS", "max_cols": "COLS", "band": "BAND",
             "label_network": "LABEL_NETWORK"}
    return " ".join(f"{names[k]}={v}" for k, v in changes.items())


def check_clock(target, records):
    """Raise :class:`ClockUnsupported` unless the evidence supports ``target``'s clock on
    the Arty (other boards check their own place-and-route)."""
    if target.board != ARTY.name:
        return
    clock = f"{mhz(target.clock_hz)} MHz"
    record = find(target, records)
    if record is None or not record.get(ULX3S.name):
        raise ClockUnsupported(
            f"no evidence for an Arty clock of {clock}: the {describe(key(target))} build has "
            f"no ECP5 post-route Fmax in boards/evidence.json; build it on the ULX3S (make "
            f"bitstream BOARD=ulx3s {_make_args(target)}), add its summary (python -m "
            f"slitherlink.boards.evidence --add build/ulx3s/summary.json), or go on without "
            f"evidence (FORCE_CLOCK=1, --force-clock)")
    ecp5 = record[ULX3S.name]
    if target.clock_hz > ecp5["fmax_mhz"] * 1e6 / MARGIN[ARTY.name]:
        supported = board_clock(ARTY.name, record)
        suggestion = f"CLOCK={mhz(supported)}, " if supported else ""
        raise ClockUnsupported(
            f"an Arty clock of {clock} is above the {ecp5['fmax_mhz']:.2f} MHz that the "
            f"{describe(record)} build reaches on the ECP5 after place-and-route "
            f"({ecp5['commit']}): build at {suggestion}or go on anyway (FORCE_CLOCK=1, "
            f"--force-clock)")


# --- adding builds -------------------------------------------------------------------------

def _measured(summary):
    """``(key, board, numbers)`` of a ``summary.json`` of :mod:`boards.build`."""
    if summary.get("core") not in CORES:
        raise ValueError(f"the {summary.get('core')!r} build is not a SoC: only the SoC "
                         f"builds ({', '.join(CORES)}) are evidence")
    target = Target(**summary["target"])
    source = summary.get("source") or {}
    numbers = {"commit": source.get("commit"),
               "local_changes": bool(source.get("uncommitted_changes"))}
    u = summary["utilisation"]
    if summary["board"] == ULX3S.name:
        if summary.get("fmax_worst_mhz") is None:
            raise ValueError("the ULX3S build has no post-route Fmax (it did not route)")
        numbers.update(LUT=u["LUT"], FF=u["FF"], EBR=u["EBR"],
                       fmax_mhz=summary["fmax_worst_mhz"],
                       **({"uart_fmax_mhz": summary["clock_fmax_mhz"][LINE_DOMAIN]}
                          if LINE_DOMAIN in summary.get("clock_fmax_mhz", {}) else {}),
                       clock_mhz=target.clock_hz / 1e6, timing_met=summary["timing_met"],
                       seed=summary["seed"], nextpnr_options=summary.get("pnr_opts", ""),
                       hide_names=summary.get("hide_names", False))
    else:
        numbers.update(LUT=u["LUT"], FF=u["FF"], BRAM36=u["BRAM36"])
    return key(target), summary["board"], numbers


def add(records, summary):
    """``records`` with the numbers of a build's ``summary`` (a dict) in its record; they
    replace that board's numbers of the same build.  ValueError for a summary that is not
    evidence."""
    wanted, board, numbers = _measured(summary)
    records = [dict(r) for r in records]
    record = next((r for r in records if {k: r[k] for k in wanted} == wanted), None)
    if record is None:
        record = dict(wanted)
        records.append(record)
    record[board] = numbers
    return sorted(records, key=_order)


# --- the table of builds ----------------------------------------------------------------

def _commit(numbers):
    return (numbers.get("commit") or "?") + (" + local changes" if numbers.get("local_changes")
                                             else "")


def _clock(board, record):
    clock = board_clock(board, record)
    if clock is None:
        return "no evidence" if board == ARTY.name else "-"
    return f"{mhz(clock)} MHz"


def _bound(board):
    """Where ``board``'s clock stands against the ECP5's Fmax (:data:`MARGIN`), in words."""
    return (f"at least {100 * (MARGIN[board] - 1):g} % below" if MARGIN[board] > 1
            else "at most")


def default_clocks(records):
    """A line on each board's default clock and the evidence it comes from (Markdown)."""
    parts = []
    for board in BOARDS.values():
        target = default_target(board.name)
        record = find(target, records)
        ecp5 = (record or {}).get(ULX3S.name)
        if ecp5:
            evidence = (f"{_bound(board.name)} the {ecp5['fmax_mhz']:.2f} MHz at which its "
                        f"default build, {describe(record)}, routes on the ECP5 "
                        f"({ecp5['commit']})")
        else:
            evidence = f"no evidence for its default build, {describe(key(target))}"
        parts.append(f"{board.title} **{mhz(board.clock_hz)} MHz** ({evidence})")
    return "Default clocks: " + "; ".join(parts) + ".\n"


def table(records):
    """The table of builds (Markdown): a row a build, its numbers on both chips and the
    clock each board's build of it uses."""
    xc7, ecp5 = ARTY.capacity, ULX3S.capacity
    lines = ["| core | grid | band, label network | ECP5 LUT4 | ECP5 FF | ECP5 EBR "
             "| ECP5 post-route Fmax | XC7A35T LUTs | XC7A35T FFs | XC7A35T BRAM "
             "| Arty clock | ULX3S clock |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        engine = "-" if r["band"] is None else f"{r['band']}, {r['label_network']}"
        e, a = r.get(ULX3S.name), r.get(ARTY.name)
        if e:
            met = "" if e["timing_met"] else ", not met"
            options = ", ".join(filter(None, [f"seed {e['seed']}", e["nextpnr_options"],
                                              "hidden names" if e["hide_names"] else ""]))
            uart = (f"UART clock {e['uart_fmax_mhz']:.2f} MHz" if "uart_fmax_mhz" in e
                    else "UART clock not measured")
            ecp5_cells = (f"{e['LUT']:,} ({100 * e['LUT'] / ecp5['LUT']:.1f} %) | {e['FF']:,} "
                          f"| {e['EBR']} | **{e['fmax_mhz']:.2f} MHz** "
                          f"({mhz(e['clock_mhz'] * 1e6)} MHz asked{met}; {uart}; {options}; "
                          f"{_commit(e)})")
        else:
            ecp5_cells = "| | | no evidence"
        if a:
            fits = "" if a["LUT"] <= 0.8 * xc7["LUT"] else ", over 80 %"
            xc7_cells = (f"{a['LUT']:,} ({100 * a['LUT'] / xc7['LUT']:.1f} %{fits}; "
                         f"{_commit(a)}) | {a['FF']:,} | {a['BRAM36']:g} RAMB36")
        else:
            xc7_cells = "| |"
        lines.append(f"| {r['core']} | {r['max_rows']}x{r['max_cols']} | {engine} "
                     f"| {ecp5_cells} | {xc7_cells} | {_clock(ARTY.name, r)} "
                     f"| {_clock(ULX3S.name, r)} |")
    return "\n".join(lines) + "\n"


def with_table(text, records):
    """``text`` (docs/boards.md) with the table of builds between its marks; ValueError when
    the marks are missing."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError("docs/boards.md has no marks for the table of builds")
    return (text[:start + len(BEGIN)] + "\n" + default_clocks(records) + "\n" + table(records)
            + text[end:])


def default_build(records):
    """The README's paragraph on the default build (Markdown): what it carries, its
    XC7A35T utilisation, its clock on each board and the ECP5 evidence of that clock."""
    target = DEFAULT_TARGET
    record = find(target, records) or key(target)
    engine = (f", the deduction engine at band {target.band} with the "
              f"{target.label_network} label network," if target.deduce else "")
    text = [f"**The default build** (what `make bitstream` builds for the {ARTY.title}, "
            f"and exactly what the virtual board simulates) is `{target.core}`: "
            f"{CORE_ENGINES[target.core]}"
            f"{engine} for grids up to {target.max_rows}x{target.max_cols}."]
    arty, ecp5 = record.get(ARTY.name), record.get(ULX3S.name)
    if arty:
        text.append(f"It takes {arty['LUT']:,} LUTs of the XC7A35T, "
                    f"{100 * arty['LUT'] / ARTY.capacity['LUT']:.1f} % ({arty['FF']:,} FFs, "
                    f"{arty['BRAM36']:g} RAMB36; yosys `synth_xilinx` at {_commit(arty)}).")
    if ecp5:
        ulx3s_clock = ""
        if key(default_target(ULX3S.name)) == key(target) and \
                ULX3S.clock_hz * MARGIN[ULX3S.name] <= ecp5["fmax_mhz"] * 1e6:
            ulx3s_clock = (f"; the ULX3S's build of it runs at {mhz(ULX3S.clock_hz)} MHz, "
                           f"{_bound(ULX3S.name)}")
        paper = ("" if ecp5["fmax_mhz"] * 1e6 >= PAPER_CLOCK_HZ else
                 f" The paper's {mhz(PAPER_CLOCK_HZ)} MHz is not reached by this build.")
        text.append(f"No Artix-7 place-and-route runs here, so its clock comes from the "
                    f"ECP5: the same build routes at **{ecp5['fmax_mhz']:.2f} MHz** on the "
                    f"{ULX3S.title} (nextpnr-ecp5, seed {ecp5['seed']}, at {_commit(ecp5)}), "
                    f"and the Arty's build runs at **{mhz(ARTY.clock_hz)} MHz**, no faster "
                    f"(`make bitstream` refuses a faster Arty clock unless forced)"
                    f"{ulx3s_clock}.{paper}")
    else:
        text.append("It has no ECP5 post-route Fmax yet, so its Arty clock has no evidence.")
    ratio = {2: "twice"}.get(UART_CLOCK_RATIO, f"{UART_CLOCK_RATIO} times")
    text.append(f"The UART's line side runs at {ratio} the design clock. Every build's "
                f"figures: [docs/boards.md](docs/boards.md).")
    return textwrap.fill(" ".join(text), 90, break_long_words=False,
                         break_on_hyphens=False) + "\n"


def with_default_build(text, records):
    """``text`` (README.md) with :func:`default_build` between its marks; ValueError when
    the marks are missing."""
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError("README.md has no marks for the paragraph on the default build")
    return text[:start + len(README_BEGIN)] + "\n" + default_build(records) + text[end:]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m slitherlink.boards.evidence",
        description="The builds' evidence (boards/evidence.json), the table of builds in "
                    "docs/boards.md and the README's paragraph on the default build.")
    parser.add_argument("--add", nargs="+", default=[], metavar="SUMMARY",
                        help="summary.json files of boards.build to add (ULX3S: the ECP5's "
                             "utilisation and Fmax; Arty: the XC7A35T's utilisation)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the table in docs/boards.md or the README's paragraph "
                             "on the default build is not current")
    parser.add_argument("--evidence", type=Path, default=EVIDENCE, help=argparse.SUPPRESS)
    root = checkout()
    parser.add_argument("--docs", type=Path, help=argparse.SUPPRESS,
                        default=root / "docs" / "boards.md" if root else None)
    parser.add_argument("--readme", type=Path, help=argparse.SUPPRESS,
                        default=root / "README.md" if root else None)
    args = parser.parse_args(argv)
    pages = []   # (path, its text, its text made current, what it is)
    try:
        records = load(args.evidence)
        for path in args.add:
            try:
                summary = json.loads(Path(path).read_text())
                records = add(records, summary)
            except (KeyError, TypeError, ValueError) as error:
                raise ValueError(f"{path}: {error}") from None
        for path, regenerate, what in ((args.docs, with_table, "the table of builds"),
                                       (args.readme, with_default_build,
                                        "the paragraph on the default build")):
            if path is not None:
                text = path.read_text()
                pages.append((path, text, regenerate(text, records), what))
    except (OSError, ValueError) as error:
        print(f"boards.evidence: error: {error}", file=sys.stderr)
        return 1
    stale = [(path, what) for path, text, current, what in pages if current != text]
    if args.check:
        for path, what in stale:
            print(f"boards.evidence: {what} in {path} is not current: run "
                  f"python -m slitherlink.boards.evidence", file=sys.stderr)
        return 1 if stale else 0
    if args.add:
        save(records, args.evidence)
        print(f"boards.evidence: {len(args.add)} build(s) added to {args.evidence}")
    for path, _, current, what in pages:
        if (path, what) in stale:
            path.write_text(current)
            print(f"boards.evidence: wrote {what} in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
