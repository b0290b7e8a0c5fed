"""Deduce mode of the benchmark (``python -m slitherlink.bench.board --mode deduce``).

The deduction engine (hw/deduce/engine.py, driven by firmware/src/deduce.c) on
virtual boards built per *size class* (a build per grid of ``--classes``: every
puzzle runs on the smallest build that holds it as it is), in unique mode, with
``--max-decisions`` as the bound.  This module holds what is particular to the
mode -- the classes, the golden model's expectation, one record per puzzle, the
summary per class, its Markdown and the goals of issue 12; :mod:`bench.board`
runs the boards and the peers and writes the files.

Per puzzle: the SoC's solve cycles (``cycles``: the same 64-bit counter as
paper mode, from "puzzle loaded" to "answer ready"; exact), the engine's busy
clocks (``engine_clocks``, part of ``cycles``) and every counter of
DEDUCE_RESULT (:data:`spec.protocol.DEDUCE_COUNTERS`), which must all equal
those of :func:`model.deduce.solve` with the same bound (``golden_match``).
The UART is not in the cycles; it is given separately from the exact lengths of
the SOLVE and DEDUCE_RESULT frames::

    uart = 10 * (len(SOLVE frame) + len(DEDUCE_RESULT frame)) / baud
    e2e  = uart + cycles / clock
"""

import statistics

from slitherlink.bench import paper
from slitherlink.bench.peers import _cells, judge
from slitherlink.host import protocol as P
from slitherlink.host.result import Result, Status
from slitherlink.spec.protocol import DEDUCE_COUNTERS

__all__ = ["DEFAULT_CLASSES", "DEFAULT_MAX_DECISIONS", "DEDUCE_ENGINES", "GOALS", "parse_classes",
           "parse_fmax", "fmax_for", "fmax_label",
           "class_for", "model_expectation", "compare_with_model", "frame_bytes", "record",
           "summarise", "markdown", "goals"]

#: The builds, smallest first: a puzzle runs on the first that holds it (rows and columns
#: as they are; the corpus has its long side as columns except the 30x25s and a 22x21).
DEFAULT_CLASSES = "10x10,15x15,20x20,20x36,30x25,30x30,40x40,60x60"
#: The default bound, in decisions (the corpus needs at most 150, docs/deduce.md).
DEFAULT_MAX_DECISIONS = 1000
#: The default peers of deduce mode: the solvers (``model`` is the paper's search).
DEDUCE_ENGINES = ("sat", "z3", "ip", "cpsat")
#: The peer the speed-up is measured against.
SPEEDUP_PEER = "sat"
#: Bits on the line per byte (8N1).
BITS_PER_BYTE = 10

#: Issue 12's goals for deduce mode.
GOALS = {"median_10x10": 1_000, "median_20x36": 30_000, "max_cycles": 2_000_000,
         "speedup": 10.0}


# -- classes ------------------------------------------------------------------------------------

def parse_classes(text):
    """``"10x10,15x15"`` -> ``[(10, 10), (15, 15)]``, smallest (cells) first; ValueError
    (one line) for a bad one."""
    grids = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        rows, _, cols = part.partition("x")
        if not (rows.isdigit() and cols.isdigit()) or not (
                1 <= int(rows) <= P.MAX_GRID and 1 <= int(cols) <= P.MAX_GRID):
            raise ValueError(f"bad class {part!r}: write ROWSxCOLS, each 1..{P.MAX_GRID}")
        grids.append((int(rows), int(cols)))
    if not grids:
        raise ValueError("--classes names no build")
    return sorted(set(grids), key=lambda g: (g[0] * g[1], g))


def parse_fmax(text):
    """``--fmax``: ``"39.4"`` (one clock for every class) -> 39.4, or
    ``"10x10=39.4,36x20=25.1"`` (each class at its own build's post-route Fmax) -> a
    dict ``{class: MHz}``; ValueError (one line) for a bad one."""
    def clock(value, what):
        try:
            mhz = float(value)
        except ValueError:
            mhz = None
        if mhz is None or not 0 < mhz < 10_000:
            raise ValueError(f"--fmax: bad clock {value!r}{what}: write MHz, e.g. 39.4")
        return mhz
    if "=" not in text:
        return clock(text.strip(), "")
    out = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        cls, _, value = part.partition("=")
        try:
            (grid,) = parse_classes(cls)
        except ValueError:
            raise ValueError(f"--fmax: bad class {cls.strip()!r}: write ROWSxCOLS=MHZ, "
                             f"e.g. 10x10=39.4") from None
        out[f"{grid[0]}x{grid[1]}"] = clock(value.strip(), f" for {cls.strip()}")
    return out


def fmax_for(fmax, cls):
    """The clock (MHz) at which class ``cls`` is timed: ``fmax`` itself (one clock for
    all), its entry (a clock per build), or None."""
    return fmax.get(cls) if isinstance(fmax, dict) else fmax


def fmax_label(fmax, clocks=False):
    """``"at 39.4 MHz"`` or ``"at each build's Fmax"``; with ``clocks``, ``"at 39.4 MHz
    (Fmax)"`` or the same with each build's clock."""
    if isinstance(fmax, dict):
        return "at each build's Fmax" + (" (ECP5 post-route: " + ", ".join(
            f"{c} {v:g} MHz" for c, v in fmax.items()) + ")" if clocks else "")
    return f"at {fmax:g} MHz" + (" (Fmax)" if clocks else "")


def class_for(row, classes):
    """The grid of the smallest build of ``classes`` that holds the puzzle, or None."""
    for grid in classes:
        if row["rows"] <= grid[0] and row["cols"] <= grid[1]:
            return grid
    return None


def grid_name(grid):
    return f"{grid[0]}x{grid[1]}"


# -- the golden model ---------------------------------------------------------------------------

def model_expectation(puzzle, max_decisions, band=1):
    """What the band model (:func:`model.band.band_solve`) does with the board's request on a
    build of ``band`` framed rows a word (unique mode, the same decision bound): status,
    every counter as the engine counts it and the cycle estimate."""
    import time

    from slitherlink.model.band import band_solve
    start = time.perf_counter()
    banded = band_solve(puzzle, band=band, max_solutions=2, max_decisions=max_decisions)
    outcome = banded.outcome
    seconds = time.perf_counter() - start
    status = Result.status_for(len(outcome.solutions), wanted_unique=True,
                               exhausted=outcome.exhausted)
    return {"status": status.name, "counters": banded.counters(),
            "limit": outcome.limit_reached, "cycles": banded.cycles(band),
            "seconds": round(seconds, 4)}


MISMATCH = "counters differ from the golden model's"


def compare_with_model(rec, expected):
    """Set ``golden_status``, ``golden_match``, ``model_cycles`` and ``model_seconds`` of a
    deduce record: the status and every counter of DEDUCE_COUNTERS must be the model's."""
    rec["golden_status"] = expected["status"]
    rec["model_cycles"] = expected["cycles"]
    rec["model_seconds"] = expected["seconds"]
    differ = [k for k in DEDUCE_COUNTERS if rec.get(k) != expected["counters"][k]]
    rec["golden_match"] = rec["status"] == expected["status"] and not differ
    rec["note"] = "; ".join(n for n in rec.get("note", "").split("; ") if n and MISMATCH not in n)
    if not rec["golden_match"] and rec["status"] != "CRASH":
        what = ", ".join(f"{k} {rec.get(k)} != {expected['counters'][k]}" for k in differ)
        if rec["status"] != expected["status"]:
            what = ", ".join(filter(None, [f"status {rec['status']} != {expected['status']}",
                                           what]))
        rec["note"] = "; ".join(filter(None, [rec["note"], f"{MISMATCH}: {what}"]))
    return rec


# -- one puzzle ---------------------------------------------------------------------------------

def frame_bytes(puzzle, status, max_decisions):
    """(bytes of the deduce-mode SOLVE frame, bytes of its DEDUCE_RESULT frame)."""
    solve = P.encode_solve(puzzle, unique=True, max_checks=max_decisions, mode="deduce")
    solved = status in Status.__members__ and Status[status].solved
    blank = tuple(tuple(False for _ in range(puzzle.cols)) for _ in range(puzzle.rows))
    result = P.encode_deduce_result(Status[status] if solved else Status.LIMIT, puzzle.rows,
                                    puzzle.cols, solution=blank if solved else None,
                                    unique=True)
    return len(solve), len(result)


def uart_seconds(solve_bytes, result_bytes, baud):
    return BITS_PER_BYTE * (solve_bytes + result_bytes) / baud


def record(row, answer, *, puzzles, clock_hz, bauds, max_decisions, grid, wall):
    """The record of one puzzle from the board's ``answer`` (``status``, ``solution``,
    ``message``, ``counters``: a :class:`host.result.Result`'s, or a CRASH)."""
    counters = answer["counters"]
    if answer["status"] in ("CRASH", "ERROR"):
        verdict, note = "wrong", answer["message"]
    else:
        verdict, note = judge(row, answer, puzzles)
    trail_full = "trail was full" in (answer.get("message") or "")
    if trail_full:
        note = "; ".join(filter(None, [note, "the hardware trail was full"]))
    cycles = int(counters.get("cycles", 0))
    solve_bytes, result_bytes = frame_bytes(row["puzzle"], answer["status"], max_decisions)
    rec = {
        "name": row["name"], "size": row["size"], "rows": row["rows"], "cols": row["cols"],
        "cells": row["cells"], "clues": int(row["clues"]), "source": row["source"],
        "difficulty": row["difficulty"], "unique": row["unique"],
        "ref_seconds": float(row["ref_seconds"]), "class": grid_name(grid),
        "status": answer["status"], "verdict": verdict,
        **{name: int(counters.get(name, 0)) for name in DEDUCE_COUNTERS},
        "engine_clocks": int(counters.get("engine_clocks", 0)),
        "cycles": cycles, "trail_full": trail_full, "clock_hz": clock_hz,
        "seconds_at_clock": cycles / clock_hz if clock_hz else None,
        "seconds_at_50mhz": cycles / paper.CLOCK_HZ,
        "solve_frame_bytes": solve_bytes, "result_frame_bytes": result_bytes,
        **{f"uart_{b}": uart_seconds(solve_bytes, result_bytes, b) for b in bauds},
        **{f"e2e_{b}": uart_seconds(solve_bytes, result_bytes, b)
           + (cycles / clock_hz if clock_hz else 0.0) for b in bauds},
        "golden_status": None, "golden_match": None, "model_cycles": None,
        "model_seconds": None, "sim_wall_seconds": round(wall, 3), "note": note, "peers": {},
    }
    return rec


# -- the summary --------------------------------------------------------------------------------

def _median(values):
    return statistics.median(values) if values else None


def summarise(records, engines, bauds, fmax_mhz=None, paper_records=(), paper_skipped=()):
    """Per class (build grid, smallest first): the hardware's, the peers' and (``both``)
    the paper mode's figures; a dict."""
    classes = {}
    for rec in records:
        classes.setdefault(rec["class"], []).append(rec)
    papers = {r["name"]: r for r in paper_records}
    out = {}
    for cls in sorted(classes, key=_cells):
        recs = classes[cls]
        cycles = [r["cycles"] for r in recs]
        mhz = fmax_for(fmax_mhz, cls)
        sizes = {}
        for r in recs:
            sizes[r["size"]] = sizes.get(r["size"], 0) + 1
        entry = {
            "n": len(recs), "sizes": dict(sorted(sizes.items(), key=lambda kv: _cells(kv[0]))),
            "ok": sum(r["verdict"] == "ok" for r in recs),
            "limits": sum(r["verdict"] == "timeout" for r in recs),
            "wrong": sum(r["verdict"] == "wrong" for r in recs),
            "golden_match": sum(bool(r["golden_match"]) for r in recs),
            "trail_full": sum(bool(r.get("trail_full")) for r in recs),
            "cycles": {"median": _median(cycles), "max": max(cycles),
                       "mean": statistics.fmean(cycles)},
            "max_name": max(recs, key=lambda r: r["cycles"])["name"],
            "engine_clocks_median": _median([r["engine_clocks"] for r in recs]),
            "model_cycles_median": _median([r["model_cycles"] for r in recs
                                            if r["model_cycles"] is not None]),
            "decisions_max": max(r["decisions"] for r in recs),
            "branch_free": sum(r["decisions"] == 0 for r in recs),
            "seconds_at_50mhz": {"median": _median(cycles) / paper.CLOCK_HZ,
                                 "max": max(cycles) / paper.CLOCK_HZ},
            "fmax_mhz": mhz,
            "seconds_at_fmax": None if not mhz else {
                "median": _median(cycles) / (mhz * 1e6),
                "max": max(cycles) / (mhz * 1e6)},
            "frame_bytes_median": _median([r["solve_frame_bytes"] + r["result_frame_bytes"]
                                           for r in recs]),
            **{f"uart_{b}": _median([r[f"uart_{b}"] for r in recs]) for b in bauds},
            **{f"e2e_{b}": _median([r[f"e2e_{b}"] for r in recs]) for b in bauds},
            "peers": {},
        }
        for engine in engines:
            runs = [r["peers"][engine] for r in recs if engine in r["peers"]]
            if runs:
                seconds = [p["seconds"] for p in runs]
                entry["peers"][engine] = {
                    "n": len(runs), "median": _median(seconds), "max": max(seconds),
                    "timeouts": sum(p["verdict"] == "timeout" for p in runs),
                    "wrong": sum(p["verdict"] == "wrong" for p in runs)}
        peer = entry["peers"].get(SPEEDUP_PEER)
        entry["speedup_50mhz"] = peer["median"] / entry["seconds_at_50mhz"]["median"] \
            if peer and entry["cycles"]["median"] else None
        entry["speedup_fmax"] = peer["median"] / entry["seconds_at_fmax"]["median"] \
            if peer and mhz and entry["cycles"]["median"] else None
        ran = [papers[r["name"]] for r in recs if r["name"] in papers]
        skipped = [r for r in recs if r["name"] in paper_skipped]
        if ran or skipped:
            same = [r["cycles"] for r in recs if r["name"] in papers]
            entry["paper"] = {
                "n": len(ran), "over_bound": len(skipped),
                "ok": sum(p["verdict"] == "ok" for p in ran),
                "timeouts": sum(p["verdict"] == "timeout" for p in ran),
                "wrong": sum(p["verdict"] == "wrong" for p in ran),
                "golden_match": sum(bool(p["golden_match"]) for p in ran),
                "cycles_median": _median([p["cycles"] for p in ran]),
                "cycles_max": max((p["cycles"] for p in ran), default=None),
                "deduce_cycles_median": _median(same)}
        out[cls] = entry
    return out


# -- Markdown -----------------------------------------------------------------------------------

def _t(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    if seconds < 100:
        return f"{seconds:.3g} s"
    return f"{seconds:.0f} s"


def _n(value):
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{round(value):,}"


def _x(ratio, mark=""):
    if ratio is None:
        return "-"
    return f"{mark}{ratio:,.0f}x" if ratio >= 10 else f"{mark}{ratio:.2g}x"


def _baud(baud):
    return f"{baud / 1e6:g} Mbaud" if baud >= 1_000_000 else f"{baud:,} baud"


def _speedup_mark(s):
    """A hardware median that includes limits is a lower bound (the speed-up an upper
    one), a peer median with time-outs the other way round."""
    peer = s["peers"].get(SPEEDUP_PEER, {})
    low, high = bool(s["limits"]), bool(peer.get("timeouts"))
    return "~" if low and high else "≤ " if low else "≥ " if high else ""


def markdown(summary, meta, records):
    """The Markdown of a deduce-mode run (the docs' "Deduce mode" results)."""
    fmax, bauds, engines = meta.get("fmax_mhz"), meta["bauds"], meta["engines"]
    classes = meta.get("classes", {})
    built = ", ".join(f"{c} (built in {info['build_seconds']:.0f} s)"
                      if info.get("build_seconds") is not None else f"{c} (cached)"
                      for c, info in classes.items() if not info.get("error"))
    lines = [f"Run of {meta['date']}: `{meta['command']}`", "",
             f"{meta['puzzles']} puzzles; the deduction engine on virtual boards built per "
             f"size class at {meta['clock_hz'] / 1e6:g} MHz (builds: {built or 'none'}); "
             f"simulated UART at {_baud(meta['sim_baud'])} "
             f"(the cycles do not depend on it); unique mode; limit "
             f"{meta['max_decisions']:,} decisions per puzzle on the board and in the golden "
             f"model, " + (f"{meta['peer_time_limit']:g} s per puzzle and engine for the "
                          f"peers ({', '.join(engines)})" if engines else "no peers") + "; "
             f"{meta['jobs']} jobs on {meta['cpus']} CPUs (load average at the start "
             f"{meta['load_start']}); source {meta.get('git', 'unknown')}.", ""]
    if meta.get("not_reached"):
        lines += ["**Not reached:** " + "; ".join(
            f"{cls}: {info['error']} ({info['n']} puzzle(s) not run)"
            for cls, info in classes.items() if info.get("error")), ""]
    lines += ["Statistics include the puzzles stopped by the bound at the value where they "
              "stopped (a lower bound; marked ≥). Wrong answers must be 0, and every counter "
              "must equal the golden model's (" + ("`model.band.band_solve`, band "
              f"{meta['band']}" if meta.get("band") else "`model.deduce.solve`") + ").", ""]
    per_build = isinstance(fmax, dict)
    fcols = ((["ECP5 Fmax", "median at Fmax", "max at Fmax"] if per_build else
              [f"median at {fmax:g} MHz", f"max at {fmax:g} MHz"]) if fmax else [])
    xcols = [f"speed-up over sat {fmax_label(fmax)}"] if fmax else []
    peer_cols = [e for e in ("sat", "cpsat") if e in engines]
    head = (["class (build)", "sizes", "n", "wrong", "limit", "golden model = hw",
             "cycles median", "cycles max", "engine clocks median", "model estimate median",
             "decisions max", "median at 50 MHz", "max at 50 MHz", *fcols]
            + [f"{e} median" for e in peer_cols]
            + ["speed-up over sat at 50 MHz", *xcols])
    lines += ["### The hardware per size class (exact cycles on the virtual board)", "",
              "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for cls, s in summary.items():
        ge = "≥ " if s["limits"] else ""
        sizes = ", ".join(f"{size} ({k})" for size, k in s["sizes"].items())
        mark = _speedup_mark(s)
        cells = [cls, sizes, str(s["n"]), str(s["wrong"]), str(s["limits"]),
                 f"{s['golden_match']}/{s['n']}", ge + _n(s["cycles"]["median"]),
                 ge + _n(s["cycles"]["max"]), ge + _n(s["engine_clocks_median"]),
                 _n(s["model_cycles_median"]), _n(s["decisions_max"]),
                 ge + _t(s["seconds_at_50mhz"]["median"]), ge + _t(s["seconds_at_50mhz"]["max"])]
        if fmax:
            at = s["seconds_at_fmax"]
            cells += ([f"{s['fmax_mhz']:g} MHz" if s["fmax_mhz"] else "-"] if per_build else [])
            cells += [ge + _t(at["median"]), ge + _t(at["max"])] if at else ["-", "-"]
        for e in peer_cols:
            p = s["peers"].get(e)
            cells.append(f"{'≥ ' if p and p['timeouts'] else ''}{_t(p['median'])}" if p else "-")
        cells.append(_x(s["speedup_50mhz"], mark))
        if fmax:
            cells.append(_x(s["speedup_fmax"], mark))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Speed-up = the sat peer's median wall time / the hardware's median solve time "
              "(cycles / clock) of the class. The model estimate is "
              + ("`model.band.BandCycleModel` (docs/deduce.md section 12.1)" if meta.get("band")
                 else "`model.deduce`'s cycle model (docs/deduce.md section 6)")
              + ", not a measurement."]

    # the UART, separately
    head = ["class (build)", "frame bytes median (SOLVE + DEDUCE_RESULT)",
            *(f"UART median @ {_baud(b)}" for b in bauds),
            *(f"e2e median @ {_baud(b)}" for b in bauds)]
    lines += ["", "### The UART transfer (not in the cycles)", "",
              "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for cls, s in summary.items():
        ge = "≥ " if s["limits"] else ""
        lines.append("| " + " | ".join([cls, _n(s["frame_bytes_median"]),
                                        *(_t(s[f"uart_{b}"]) for b in bauds),
                                        *(ge + _t(s[f"e2e_{b}"]) for b in bauds)]) + " |")
    lines += ["", "UART = 10 bits per byte x (SOLVE + DEDUCE_RESULT bytes) / baud, from the "
              "frames' exact lengths; e2e = UART + cycles / clock (the firmware's request and "
              "reply handling is not included)."]

    if engines:
        lines += ["", "### The software peers (wall time, same puzzles, same run)", "",
                  "| class (build) | n | " + " | ".join(
                      f"{e} median / max (t/o, wrong)" for e in engines) + " |",
                  "|---|---|" + "---|" * len(engines)]
        for cls, s in summary.items():
            cells = []
            for e in engines:
                p = s["peers"].get(e)
                if not p:
                    cells.append("-")
                    continue
                ge = "≥ " if p["timeouts"] else ""
                cells.append(f"{ge}{_t(p['median'])} / {ge}{_t(p['max'])} "
                             f"({p['timeouts']}, {p['wrong']})")
            lines.append(f"| {cls} | {s['n']} | " + " | ".join(cells) + " |")

    if any("paper" in s for s in summary.values()):
        lines += ["", "### Paper mode beside it (same run, same boards)", "",
                  f"The paper's search ran on the puzzles of up to {meta['paper_max_cells']:,} "
                  f"cells that its golden model (`model.paper.search`, whose counters the "
                  f"hardware reproduces exactly) finishes within {meta['max_checks']:,} checks; "
                  f"the others are counted as over the bound, not run.", "",
                  "| class (build) | paper: run | over its bound | wrong | golden model = hw | "
                  "paper cycles median | paper cycles max | deduce cycles median (same "
                  "puzzles) | paper / deduce |", "|---|---|---|---|---|---|---|---|---|"]
        for cls, s in summary.items():
            p = s.get("paper")
            if not p:
                continue
            ratio = p["cycles_median"] / p["deduce_cycles_median"] \
                if p["cycles_median"] and p["deduce_cycles_median"] else None
            lines.append(f"| {cls} | {p['n']} | {p['over_bound']} | {p['wrong']} | "
                         f"{p['golden_match']}/{p['n']} | {_n(p['cycles_median'])} | "
                         f"{_n(p['cycles_max'])} | {_n(p['deduce_cycles_median'])} | "
                         f"{_x(ratio)} |")

    lines += ["", "### Issue 12's goals", ""]
    lines += [f"* {text}" for text in goals(summary, records, meta)]
    lines += ["", f"Hardware: {meta['hardware_note']}"]
    return "\n".join(lines) + "\n"


def goals(summary, records, meta):
    """One line per goal of issue 12: reached or not, with the number measured."""
    fmax = meta.get("fmax_mhz")
    out = []

    def size_goal(size, limit, what):
        recs = [r for r in records if r["size"] == size]
        if not recs:
            return f"{what} ≤ {limit:,} cycles: not measured (no {size} puzzle in this run)"
        median = statistics.median(r["cycles"] for r in recs)
        limited = sum(r["verdict"] == "timeout" for r in recs)
        crashed = sum(r["status"] == "CRASH" for r in recs)
        ok = median <= limit and not limited and not crashed
        return (f"{what} ≤ {limit:,} cycles: **{'reached' if ok else 'not reached'}** — "
                f"{'≥ ' if limited else ''}{median:,.0f} cycles over {len(recs)} {size} "
                f"puzzles ({median / paper.CLOCK_HZ * 1e6:.3g} µs at 50 MHz)"
                + (f"; {limited} stopped by the bound" if limited else ""))

    out.append(size_goal("10x10", GOALS["median_10x10"], "10x10 median"))
    out.append(size_goal("20x36", GOALS["median_20x36"], "20x36 median"))
    if records:
        top = max(records, key=lambda r: r["cycles"])
        limited = any(r["verdict"] == "timeout" for r in records)
        ok = top["cycles"] <= GOALS["max_cycles"] and not limited
        out.append(
            f"max ≤ {GOALS['max_cycles']:,} cycles over the corpus: "
            f"**{'reached on this sample' if ok else 'not reached'}** — {top['cycles']:,} "
            f"cycles ({top['name']}, {top['size']}) is the largest of the {len(records)} "
            f"puzzles of this run (a sample, not the whole corpus)"
            + ("; some stopped at the bound, so their cycles are lower bounds" if limited
               else ""))
    for label, key in (("at 50 MHz", "speedup_50mhz"),
                       (fmax_label(fmax, clocks=True) if fmax else None, "speedup_fmax")):
        if label is None:
            continue
        measured = {cls: s[key] for cls, s in summary.items()}
        missing = [c for c, v in measured.items() if v is None]
        low = {c: v for c, v in measured.items() if v is not None and v < GOALS["speedup"]}
        if not measured or len(missing) == len(measured):
            out.append(f"≥ {GOALS['speedup']:g}x faster than sat's median on every size class "
                       f"{label}: not measured (sat not run)")
            continue
        words = ", ".join(f"{c}: {_x(v)}" for c, v in measured.items() if v is not None)
        reached = not low and not missing
        text = (f"≥ {GOALS['speedup']:g}x faster than sat's median on every size class "
                f"{label}: **{'reached' if reached else 'not reached'}** — {words}")
        if low:
            text += f" (below {GOALS['speedup']:g}x: {', '.join(low)})"
        if missing:
            text += (f" (no sat median{' or no Fmax' if key == 'speedup_fmax' else ''}: "
                     f"{', '.join(missing)})")
        out.append(text)
    if not fmax:
        out.append("at the ECP5 post-route Fmax: not given (`--fmax MHZ`; re-render with "
                   "`--from-json FILE --fmax MHZ`)")
    for cls, info in meta.get("classes", {}).items():
        if info.get("error"):
            out.append(f"class {cls}: **not reached** — {info['error']}")
    return out
