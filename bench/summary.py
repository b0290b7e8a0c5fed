"""The hardware benchmark's summary: figures per size class, and its Markdown.

:func:`summarise` turns the records of one mode (:mod:`bench.modes`) into figures per
class (build): the counts of right, stopped and wrong answers, the cycles, the times at
50 MHz and at ``--fmax``, the UART, the peers and the speed-up over the ``sat`` peer.
:func:`markdown` writes a run's summary: a table per mode, the peers, the paper's
figures beside the paper mode's, the two modes side by side, and the deduction engine's
goals (docs/design.md section 6), each reached or not with the number measured.
"""

import statistics

from slitherlink.bench import paper
from slitherlink.bench.builds import DEFAULT_GRID, fmax_for, fmax_label, grid_name
from slitherlink.bench.modes import BY_NAME
from slitherlink.bench.peers import _cells

__all__ = ["SPEEDUP_PEER", "GOAL_MEDIANS", "GOAL_MAX_CYCLES", "GOAL_SPEEDUP", "GOAL_FMAX_MHZ",
           "GOAL_FMAX_MHZ_DEFAULT_GRID", "GOAL_TIME_FACTOR", "GOAL_SPEEDUP_FMAX",
           "CLOCK_BASELINE", "summarise", "markdown", "goals", "clock_goals", "reach",
           "seconds", "count", "ratio"]

#: The peer the speed-up is measured against.
SPEEDUP_PEER = "sat"
#: The deduction engine's goals (docs/design.md section 6): a median of at most so many
#: cycles per puzzle size, at most so many cycles for any puzzle, and at least so many
#: times the speed-up peer's median on every size class.
GOAL_MEDIANS = {"10x10": 1_000, "20x36": 30_000}
GOAL_MAX_CYCLES = 2_000_000
GOAL_SPEEDUP = 10.0
#: The clock's goals (docs/benchmark.md, "The goals"), per class at its build's ECP5
#: post-route Fmax: the build's Fmax at least so many MHz (the default grid's its own
#: figure), the median solve time at most 1 / GOAL_TIME_FACTOR of that of the run of
#: 2026-11-25 (docs/benchmark.md, "Every corpus puzzle up to 30x40": its median cycles and
#: the Fmax they were timed at, CLOCK_BASELINE), and at least so many times the speed-up
#: peer's median.
GOAL_FMAX_MHZ = 50.0
GOAL_FMAX_MHZ_DEFAULT_GRID = 75.0
GOAL_TIME_FACTOR = 2.0
GOAL_SPEEDUP_FMAX = 20.0
CLOCK_BASELINE = {"10x10": (1_283, 38.48), "15x15": (2_473, 34.35), "20x20": (6_591, 31.33),
                  "20x36": (11_759, 25.93), "30x25": (38_803, 31.07),
                  "30x30": (108_850, 31.91), "30x40": (89_536, 26.57)}


def _modes(meta):
    """The modes of a run (:mod:`bench.modes`), the one that ran on every puzzle first."""
    return [BY_NAME[name] for name in meta["modes"]]


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _stats(values):
    return {"median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)} if values else None


def _groups(records, key):
    out = {}
    for rec in records:
        out.setdefault(rec[key], []).append(rec)
    return {k: out[k] for k in sorted(out, key=_cells)}


def summarise(mode, records, engines, bauds, fmax=None):
    """Per class (build grid) or per puzzle size (``mode.group``), smallest first: the
    figures of ``mode``'s ``records``."""
    out = {}
    for group, recs in _groups(records, mode.group).items():
        cycles = [r["cycles"] for r in recs]
        mhz = fmax_for(fmax, recs[0]["class"])
        entry = {
            "n": len(recs),
            "sizes": {size: len(group) for size, group in _groups(recs, "size").items()},
            "ok": sum(r["verdict"] == "ok" for r in recs),
            "limits": sum(r["verdict"] == "timeout" for r in recs),
            "wrong": sum(r["verdict"] == "wrong" for r in recs),
            "golden_match": sum(bool(r["golden_match"]) for r in recs),
            "cycles": _stats(cycles),
            "max_name": max(recs, key=lambda r: r["cycles"])["name"],
            "seconds_at_50mhz": _stats([c / paper.CLOCK_HZ for c in cycles]),
            "fmax_mhz": mhz,
            "seconds_at_fmax": _stats([c / (mhz * 1e6) for c in cycles]) if mhz else None,
            "frame_bytes_median": _median([r["solve_frame_bytes"] + r["reply_frame_bytes"]
                                           for r in recs]),
            **{f"uart_{b}": _median([r[f"uart_{b}"] for r in recs]) for b in bauds},
            **{f"e2e_{b}": _median([r[f"e2e_{b}"] for r in recs]) for b in bauds},
            **mode.summary_extra(recs),
            "peers": {},
        }
        for engine in engines:
            runs = [r["peers"][engine] for r in recs if engine in r["peers"]]
            if runs:
                entry["peers"][engine] = {
                    **_stats([p["seconds"] for p in runs]), "n": len(runs),
                    "timeouts": sum(p["verdict"] == "timeout" for p in runs),
                    "wrong": sum(p["verdict"] == "wrong" for p in runs)}
        peer = entry["peers"].get(SPEEDUP_PEER)
        for key, at in (("speedup_50mhz", entry["seconds_at_50mhz"]),
                        ("speedup_fmax", entry["seconds_at_fmax"])):
            entry[key] = peer["median"] / at["median"] if peer and at and at["median"] \
                else None
        out[group] = entry
    return out


# -- numbers as text ----------------------------------------------------------------------

def seconds(value):
    """Seconds, readably: 0.00412 -> '4.12 ms'."""
    if value is None:
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.3g} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s" if value < 100 else f"{value:.0f} s"


def count(value):
    """A count or a statistic of counts: thousands separators, a fraction if any."""
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{round(value):,}"


def ratio(value, mark=""):
    if value is None:
        return "-"
    return f"{mark}{value:,.0f}x" if value >= 10 else f"{mark}{value:.2g}x"


def _baud(baud):
    return f"{baud / 1e6:g} Mbaud" if baud >= 1_000_000 else f"{baud:,} baud"


def _table(head, rows):
    return ["| " + " | ".join(head) + " |", "|---" * len(head) + "|",
            *("| " + " | ".join(cells) + " |" for cells in rows)]


def _speedup_mark(s):
    """A hardware median that includes limits is a lower bound (the speed-up an upper
    one), a peer median with time-outs the other way round."""
    peer = s["peers"].get(SPEEDUP_PEER, {})
    low, high = bool(s["limits"]), bool(peer.get("timeouts"))
    return "~" if low and high else "≤ " if low else "≥ " if high else ""


# -- the Markdown of a run ----------------------------------------------------------------

def _head(mode):
    """The first column's head: what a row of ``mode``'s tables is."""
    return "class (build)" if mode.group == "class" else "size"


def _header(meta, records):
    classes = meta["classes"]
    builds = ", ".join(f"{c} `{info['target']}` (" + (
        "cached" if info["cached"] else f"built in {info['build_seconds']:.0f} s") + ")"
        for c, info in classes.items() if not info.get("error"))
    ran = "; ".join(f"{len(records[m.name])} puzzles in {m.name} mode, at most "
                    f"{meta['bounds'][m.name]:,} {m.unit} each on the board and in its golden "
                    f"model" for m in _modes(meta))
    engines = meta["engines"]
    lines = [f"Run of {meta['date']}: `{meta['command']}`", "",
             f"{ran}; unique mode; virtual boards of the default target, one per size class "
             f"(builds: {builds or 'none'}; the last field of a build's name is its "
             f"simulated UART's rate, which does not change the cycles); "
             + (f"{meta['peer_time_limit']:g} s per puzzle and engine for the peers "
                f"({', '.join(engines)})" if engines else "no peers") + "; "
             f"{meta['jobs']} jobs on {meta['cpus']} CPUs (load average at the start "
             f"{meta['load_start']}); source {meta.get('git', 'unknown')}.", ""]
    if meta.get("not_reached"):
        lines += ["**Not reached:** " + "; ".join(
            f"{cls}: {info['error']} ({info['n']} puzzle(s) not run)"
            for cls, info in classes.items() if info.get("error")), ""]
    golden = "; ".join(f"{m.name} mode {m.golden}" + (f", band {meta['band']}"
                                                      if m.name == "deduce" else "")
                       for m in _modes(meta))
    lines += ["Statistics include the puzzles stopped by the bound at the value where they "
              "stopped (a lower bound; marked ≥). Wrong answers must be 0, and every counter "
              f"must equal the golden model's ({golden}).", ""]
    return lines


def _hardware(mode, summary, meta):
    fmax, engines = meta.get("fmax_mhz"), meta["engines"]
    per_build = isinstance(fmax, dict)
    speedup = SPEEDUP_PEER in engines
    by_class = mode.group == "class"
    head = [_head(mode), *(["sizes"] if by_class else []), "n", "wrong", "limit",
            "golden model = hw",
            "cycles median", "cycles max", *(h for h, _ in mode.columns),
            "median at 50 MHz", "max at 50 MHz"]
    if fmax:
        head += (["ECP5 Fmax", "median at Fmax", "max at Fmax"] if per_build else
                 [f"median at {fmax:.4g} MHz", f"max at {fmax:.4g} MHz"])
    if speedup:
        head += [f"{SPEEDUP_PEER} median", f"speed-up over {SPEEDUP_PEER} at 50 MHz"]
        head += [f"speed-up over {SPEEDUP_PEER} {fmax_label(fmax)}"] if fmax else []
    rows = []
    for cls, s in summary.items():
        ge = "≥ " if s["limits"] else ""
        sizes = ", ".join(f"{size} ({k})" for size, k in s["sizes"].items())
        cells = [cls, *([sizes] if by_class else []), str(s["n"]), str(s["wrong"]), str(s["limits"]),
                 f"{s['golden_match']}/{s['n']}", ge + count(s["cycles"]["median"]),
                 ge + count(s["cycles"]["max"]), *(count(s[k]) for _, k in mode.columns),
                 ge + seconds(s["seconds_at_50mhz"]["median"]),
                 ge + seconds(s["seconds_at_50mhz"]["max"])]
        if fmax:
            at = s["seconds_at_fmax"]
            cells += [f"{s['fmax_mhz']:.4g} MHz" if s["fmax_mhz"] else "-"] if per_build else []
            cells += [ge + seconds(at["median"]), ge + seconds(at["max"])] if at else ["-", "-"]
        if speedup:
            p = s["peers"].get(SPEEDUP_PEER)
            mark = _speedup_mark(s)
            cells += [f"{'≥ ' if p and p['timeouts'] else ''}{seconds(p['median'])}"
                      if p else "-", ratio(s["speedup_50mhz"], mark)]
            cells += [ratio(s["speedup_fmax"], mark)] if fmax else []
        rows.append(cells)
    lines = [f"### {mode.name.capitalize()} mode: the hardware per "
             f"{'size class' if by_class else 'puzzle size'} (exact cycles on the virtual "
             f"board)", "", *_table(head, rows), ""]
    if speedup:
        lines += [f"Speed-up = the {SPEEDUP_PEER} peer's median wall time / the hardware's "
                  f"median solve time (cycles / clock) of the {'class' if by_class else 'size'}."]
    if mode.name == "deduce":
        lines += ["The model estimate is `model.band.BandCycleModel` (docs/deduce.md "
                  "section 6), not a measurement."]
    return lines


def _uart(mode, summary, bauds):
    head = [_head(mode), "frame bytes median (SOLVE + reply)",
            *(f"UART median @ {_baud(b)}" for b in bauds),
            *(f"e2e median @ {_baud(b)}" for b in bauds)]
    rows = [[cls, count(s["frame_bytes_median"]), *(seconds(s[f"uart_{b}"]) for b in bauds),
             *(("≥ " if s["limits"] else "") + seconds(s[f"e2e_{b}"]) for b in bauds)]
            for cls, s in summary.items()]
    return ["", f"### {mode.name.capitalize()} mode: the UART transfer (not in the cycles)",
            "", *_table(head, rows), ""]


def _peers(mode, summary, engines):
    def cell(p):
        if not p:
            return "-"
        ge = "≥ " if p["timeouts"] else ""
        return (f"{ge}{seconds(p['median'])} / {ge}{seconds(p['max'])} "
                f"({p['timeouts']}, {p['wrong']})")
    rows = [[cls, str(s["n"]), *(cell(s["peers"].get(e)) for e in engines)]
            for cls, s in summary.items()]
    return ["", "### The software peers (wall time, same puzzles, same run)", "",
            *_table([_head(mode), "n", *(f"{e} median / max (t/o, wrong)" for e in engines)],
                    rows)]


def _stat_of(records, value, stat):
    values = [value(r) for r in records]
    values = [v for v in values if v is not None]
    return _stats(values)[stat] if values else None


def _ours_for(fig, recs):
    """Our figure beside one of the paper's (the same statistic of the same kind of solver)
    over the records of the same size."""
    what = fig["what"]
    stat = "median" if "(median)" in what else "max" if "(max)" in what else "mean"
    if what.startswith("hardware"):
        at_50mhz = lambda r: r["cycles"] / paper.CLOCK_HZ  # noqa: E731
        ge = "≥ " if any(r["verdict"] == "timeout" for r in recs) else ""
        text = (f"{ge}{seconds(_stat_of(recs, at_50mhz, stat))} hardware at 50 MHz ({stat}, "
                f"n={len(recs)})")
        done = [r for r in recs if r["verdict"] == "ok"]
        if ge and done:
            text += f"; {seconds(_stat_of(done, at_50mhz, stat))} over the {len(done)} finished"
        return text
    engine = "z3" if what.startswith("SMT") else "ip" if "integer programming" in what else None
    if engine is None:
        return ""
    runs = [r["peers"][engine] for r in recs if engine in r["peers"]]
    if not runs:
        return f"- ({engine} not run)"
    ge = "≥ " if any(p["verdict"] == "timeout" for p in runs) else ""
    return (f"{ge}{seconds(_stat_of(runs, lambda p: p['seconds'], stat))} {engine} "
            f"({stat}, n={len(runs)})")


def _paper_figures(records):
    rows = [[size, fig["what"], seconds(fig["seconds"]) + (f" (n={fig['n']})" if fig["n"] else ""),
             _ours_for(fig, recs), fig["citation"]]
            for size, recs in _groups(records, "size").items()
            for fig in paper.figures_for_size(size)]
    if not rows:
        return []
    return ["", "### The paper's figures beside ours (paper mode)", "",
            *_table(["size", "the paper's figure", "paper", "ours (this run)", "citation"], rows)]


def _side_by_side(meta, records):
    """Paper mode beside deduce mode on the same puzzles (``--mode both``)."""
    deduce = {r["name"]: r for r in records["deduce"]}
    over = set(meta.get("paper_over_bound", ()))
    rows = []
    for cls, recs in _groups(records["deduce"], "class").items():
        ran = [r for r in records["paper"] if deduce[r["name"]]["class"] == cls]
        skipped = sum(r["name"] in over for r in recs)
        if not ran and not skipped:
            continue
        paper_median = _median([r["cycles"] for r in ran])
        deduce_median = _median([deduce[r["name"]]["cycles"] for r in ran])
        rows.append([cls, str(len(ran)), str(skipped),
                     str(sum(r["verdict"] == "wrong" for r in ran)),
                     f"{sum(bool(r['golden_match']) for r in ran)}/{len(ran)}",
                     count(paper_median), count(max((r["cycles"] for r in ran), default=None)),
                     count(deduce_median),
                     ratio(paper_median / deduce_median if paper_median and deduce_median
                           else None)])
    return ["", "### Paper mode beside deduce mode (same run, same boards)", "",
            f"The paper's search ran on the puzzles of up to {meta['paper_max_cells']:,} "
            f"cells that its golden model finishes within {meta['bounds']['paper']:,} "
            f"checks; the others are counted as over its bound, not run.", "",
            *_table(["class (build)", "paper: run", "over its bound", "wrong",
                     "golden model = hw", "paper cycles median", "paper cycles max",
                     "deduce cycles median (same puzzles)", "paper / deduce"], rows)]


def goals(summary, records, meta):
    """One line per goal of the deduction engine: reached or not, with the number
    measured."""
    fmax = meta.get("fmax_mhz")
    out = []
    for size, limit in GOAL_MEDIANS.items():
        what = f"{size} median at most {limit:,} cycles"
        recs = [r for r in records if r["size"] == size]
        if not recs:
            out.append(f"{what}: not measured (no {size} puzzle in this run)")
            continue
        median = statistics.median(r["cycles"] for r in recs)
        limited = sum(r["verdict"] == "timeout" for r in recs)
        ok = median <= limit and not limited and not any(r["status"] == "CRASH" for r in recs)
        out.append(f"{what}: **{'reached' if ok else 'not reached'}** — "
                   f"{'≥ ' if limited else ''}{median:,.0f} cycles over {len(recs)} {size} "
                   f"puzzles ({seconds(median / paper.CLOCK_HZ)} at 50 MHz)"
                   + (f"; {limited} stopped by the bound" if limited else ""))
    if records:
        top = max(records, key=lambda r: r["cycles"])
        limited = any(r["verdict"] == "timeout" for r in records)
        ok = top["cycles"] <= GOAL_MAX_CYCLES and not limited
        out.append(f"at most {GOAL_MAX_CYCLES:,} cycles for any puzzle of the corpus: "
                   f"**{'reached on this sample' if ok else 'not reached'}** — "
                   f"{top['cycles']:,} cycles ({top['name']}, {top['size']}) is the largest "
                   f"of the {len(records)} puzzles of this run (a sample, not the whole corpus)"
                   + ("; some stopped at the bound, so their cycles are lower bounds"
                      if limited else ""))
    what = f"at least {GOAL_SPEEDUP:g}x the {SPEEDUP_PEER} peer's median on every size class"
    for label, key in (("at 50 MHz", "speedup_50mhz"),
                       (fmax_label(fmax, clocks=True) if fmax else None, "speedup_fmax")):
        if label is None:
            out.append(f"{what} at the ECP5 post-route Fmax: not given (`--fmax MHZ`; "
                       f"re-render with `--from-json FILE --fmax MHZ`)")
            continue
        measured = {cls: s[key] for cls, s in summary.items()}
        missing = [c for c, v in measured.items() if v is None]
        low = [c for c, v in measured.items() if v is not None and v < GOAL_SPEEDUP]
        if len(missing) == len(measured):
            out.append(f"{what} {label}: not measured ({SPEEDUP_PEER} not run)")
            continue
        text = (f"{what} {label}: **{'reached' if not low and not missing else 'not reached'}"
                f"** — " + ", ".join(f"{c}: {ratio(v)}" for c, v in measured.items()
                                     if v is not None))
        if low:
            text += f" (below {GOAL_SPEEDUP:g}x: {', '.join(low)})"
        if missing:
            text += (f" (no {SPEEDUP_PEER} median{' or no Fmax' if key == 'speedup_fmax' else ''}"
                     f": {', '.join(missing)})")
        out.append(text)
    for cls, info in meta.get("classes", {}).items():
        if info.get("error"):
            out.append(f"class {cls}: **not reached** — {info['error']}")
    return out


def clock_goals(summary):
    """One line per goal of the clock (:data:`GOAL_FMAX_MHZ` and the others), per class at
    its build's Fmax (``--fmax``): reached or not, with the numbers measured."""
    def line(what, measured, ok, unmeasured="no class with its build's Fmax in this run"):
        if not measured:
            return f"{what}: not measured ({unmeasured})"
        return (f"{what}: **{'reached' if all(ok.values()) else 'not reached'}** — "
                + ", ".join(f"{c}: {v}" for c, v in measured.items()))

    with_fmax = {c: s for c, s in summary.items() if s["fmax_mhz"]}
    default = grid_name(DEFAULT_GRID)
    goal = {c: GOAL_FMAX_MHZ_DEFAULT_GRID if c == default else GOAL_FMAX_MHZ
            for c in with_fmax}
    out = [line(f"every class's build at least {GOAL_FMAX_MHZ:g} MHz on the ECP5 ({default} "
                f"at least {GOAL_FMAX_MHZ_DEFAULT_GRID:g} MHz)",
                {c: f"{s['fmax_mhz']:.4g} MHz" for c, s in with_fmax.items()},
                {c: s["fmax_mhz"] >= goal[c] for c, s in with_fmax.items()})]
    timed = {c: s for c, s in with_fmax.items() if c in CLOCK_BASELINE}
    limit = {c: CLOCK_BASELINE[c][0] / (CLOCK_BASELINE[c][1] * 1e6) / GOAL_TIME_FACTOR
             for c in timed}
    out.append(line(f"the median solve time at each build's Fmax at most 1/{GOAL_TIME_FACTOR:g} "
                    f"of the run of 2026-11-25's",
                    {c: f"{seconds(s['seconds_at_fmax']['median'])} (goal "
                        f"{seconds(limit[c])})" for c, s in timed.items()},
                    {c: not s["limits"] and s["seconds_at_fmax"]["median"] <= limit[c]
                     for c, s in timed.items()}))
    fast = {c: s for c, s in with_fmax.items() if s["speedup_fmax"] is not None}
    out.append(line(f"at least {GOAL_SPEEDUP_FMAX:g}x the {SPEEDUP_PEER} peer's median at each "
                    f"build's Fmax", {c: ratio(s["speedup_fmax"], _speedup_mark(s))
                                      for c, s in fast.items()},
                    {c: s["speedup_fmax"] >= GOAL_SPEEDUP_FMAX for c, s in fast.items()},
                    f"no {SPEEDUP_PEER} median at a build's Fmax"))
    missing = sorted(set(summary) - set(with_fmax))
    if missing:
        out.append(f"no ECP5 Fmax for {', '.join(missing)}: not timed")
    return out


def markdown(meta, summaries, records):
    """The Markdown of a run: ``summaries`` and ``records`` by mode name."""
    modes = _modes(meta)
    lines = _header(meta, records)
    for mode in modes:
        lines += _hardware(mode, summaries[mode.name], meta)
        lines += _uart(mode, summaries[mode.name], meta["bauds"])
    lines += ["UART = 10 bits per byte x (SOLVE + reply bytes) / baud, from the frames' "
              "exact lengths; e2e = UART + cycles / clock (the firmware's handling of the "
              "request and of the reply is not included)."]
    if meta["engines"]:
        lines += _peers(modes[0], summaries[modes[0].name], meta["engines"])
    if "paper" in records:
        lines += _paper_figures(records["paper"])
    if "paper" in records and "deduce" in records:
        lines += _side_by_side(meta, records)
    if "deduce" in records:
        lines += ["", "### The deduction engine's goals (docs/design.md section 6)", ""]
        lines += [f"* {text}" for text in goals(summaries["deduce"], records["deduce"], meta)]
        lines += ["", "### The clock's goals (docs/benchmark.md, \"The goals\")", ""]
        lines += [f"* {text}" for text in clock_goals(summaries["deduce"])]
    for m in modes:
        lines += ["", f"Hardware, {m.name} mode: {m.note(meta['band'])} Simulated cycle by "
                      f"cycle (Verilator); `cycles` = the SoC's counter from 'puzzle loaded' "
                      f"to 'answer ready'."]
    return "\n".join(lines) + "\n"


def reach(sample, mode, bound):
    """Per puzzle size: how many puzzles ``mode``'s golden model finishes within
    ``bound`` (the dry run's table; the hardware reproduces the model's counts)."""
    lines = [f"| size | n | finished within {bound:,} {mode.unit} | median {mode.work} | "
             f"max {mode.work} of the finished |", "|---|---|---|---|---|"]
    for size, rows in _groups(sample, "size").items():
        expected = [r["expect"][mode.name] for r in rows]
        work = [e["counters"][mode.work] for e in expected]
        done = [w for w, e in zip(work, expected) if not e["limit"]]
        limited = sum(e["limit"] for e in expected)
        lines.append(f"| {size} | {len(rows)} | {len(done)} | "
                     f"{'≥ ' if 2 * limited >= len(rows) else ''}{statistics.median(work):,.0f} "
                     f"| {max(done):,} |" if done else
                     f"| {size} | {len(rows)} | 0 | ≥ {statistics.median(work):,.0f} | - |")
    return "\n".join(lines)
