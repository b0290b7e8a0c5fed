"""What the hardware benchmark measures in each mode of the SoC.

A :class:`Mode` holds what differs between the paper's search (paper section 3) and the
deduction engine (docs/design.md section 6): the golden model, the SOLVE's bound, the
reply's counters and frame, the extra columns of its table and its hardware note.  The
runner (:mod:`bench.hardware`) takes every step once, the mode a parameter.

Per puzzle a mode makes one *record* (a dict) from the board's answer: the counters,
which must equal the golden model's (``golden_match``); the SoC's solve cycles
(``cycles``: its 64-bit counter from "puzzle loaded" to "answer ready", exact, the
simulation being cycle-accurate); the times at the design clock and at the paper's
50 MHz; the verdict against the corpus (:func:`bench.peers.judge`); and the UART apart,
from the exact lengths of the frames (8N1, 10 bits a byte)::

    uart = 10 * (len(SOLVE frame) + len(reply frame)) / baud
    e2e  = uart + cycles / clock
"""

import statistics
import time

from slitherlink.bench import paper
from slitherlink.bench.peers import judge
from slitherlink.host import protocol as P
from slitherlink.host.result import Result, Status
from slitherlink.spec.counters import DEDUCE_COUNTERS, PAPER_COUNTERS, names

__all__ = ["Mode", "PAPER", "DEDUCE", "MODES", "BY_NAME", "BITS_PER_BYTE", "record", "compare"]

#: Bits on the line per byte (8N1).
BITS_PER_BYTE = 10

MISMATCH = "counters differ from the golden model's"


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


class Mode:
    """One mode of the SoC as the benchmark measures it (a singleton per mode)."""
    #: its name: SOLVE's mode, ``--mode``, the records' ``mode``
    name = ""
    #: the reply's counters that the golden model must reproduce exactly
    counters = ()
    #: the bound of a SOLVE: the keyword of :func:`host.engines.board.solve_on`, what it
    #: counts, its default
    bound = ""
    unit = ""
    default_bound = 0
    #: the counter that says how much a search worked (the dry run, the progress lines)
    work = ""
    #: the golden model, for the text
    golden = ""
    #: what the summary's rows are: each build (``class``) or each puzzle size (``size``)
    group = "class"
    #: the extra columns of the hardware table: (head, summary key)
    columns = ()

    def expect(self, puzzle, bound, band):
        """What the golden model does with the board's request (unique mode, the same
        bound): ``{"status", "counters", "limit", "cycles" (an estimate, or None),
        "seconds"}``."""
        raise NotImplementedError

    def estimate(self, expected):
        """A rough cycle count from the golden model's expectation (to start the longest
        puzzles first)."""
        raise NotImplementedError

    def extra(self, answer, cycles):
        """The mode's own fields of a record."""
        return {}

    def summary_extra(self, recs):
        """The mode's own figures of a class's summary (the keys of :attr:`columns`)."""
        return {}

    def encode_reply(self, status, rows, cols, solution):
        raise NotImplementedError

    def note(self, band):
        """What the hardware is, for the summary."""
        raise NotImplementedError

    def frame_bytes(self, puzzle, status, bound):
        """(bytes of the SOLVE frame, bytes of its reply), from :mod:`host.protocol`."""
        solve = P.encode_solve(puzzle, mode=self.name, unique=True, max_checks=bound)
        solved = status in Status.__members__ and Status[status].solved
        blank = tuple(tuple(False for _ in range(puzzle.cols)) for _ in range(puzzle.rows))
        reply = self.encode_reply(Status[status] if solved else Status.LIMIT, puzzle.rows,
                                  puzzle.cols, blank if solved else None)
        return len(solve), len(reply)

    def _outcome(self, outcome, counters, cycles, start):
        status = Result.status_for(len(outcome.solutions), wanted_unique=True,
                                   exhausted=outcome.exhausted)
        return {"status": status.name, "counters": counters, "limit": outcome.limit_reached,
                "cycles": cycles, "seconds": round(time.perf_counter() - start, 4)}


class PaperMode(Mode):
    """The paper's search on its accelerator; golden model :func:`model.paper.search`."""
    name = "paper"
    counters = names(PAPER_COUNTERS)
    bound, unit, default_bound = "max_checks", "checks", 200_000
    work = "checks"
    golden = "`model.paper.search`"
    group = "size"   # the search's cost grows steeply with the size
    columns = (("checks median", "checks_median"), ("checks max", "checks_max"),
               ("cycles/check", "cycles_per_check"))

    def expect(self, puzzle, bound, band):
        from slitherlink.model.paper import search
        start = time.perf_counter()
        outcome = search(puzzle, max_solutions=2, max_checks=bound)
        return self._outcome(outcome, outcome.counters.as_dict(), None, start)

    def estimate(self, expected):
        return expected["counters"]["checks"] * 60   # about 60 cycles a check

    def extra(self, answer, cycles):
        checks = int(answer["counters"].get("checks", 0))
        return {"cycles_per_check": round(cycles / checks, 2) if checks else None}

    def summary_extra(self, recs):
        checks = sum(r["checks"] for r in recs)
        return {"checks_median": _median([r["checks"] for r in recs]),
                "checks_max": max(r["checks"] for r in recs),
                "cycles_per_check": round(sum(r["cycles"] for r in recs) / checks, 1)
                if checks else None}

    def encode_reply(self, status, rows, cols, solution):
        return P.encode_result(status, rows, cols, solution=solution, unique=True)

    def note(self, band):
        return ("the paper's accelerator (hw/accelerator.py) in the PicoRV32 SoC "
                "(hw/soc.py), driven by the C firmware's search (firmware/src/search.c). "
                "The paper's hardware times run from processor reset to the solution (a "
                "MIPS soft CPU at 50 MHz).")


class DeduceMode(Mode):
    """The deduction engine; golden model :func:`model.band.band_solve` at the build's
    band height, whose flood and label iterations are the engine's passes."""
    name = "deduce"
    counters = names(DEDUCE_COUNTERS)
    bound, unit, default_bound = "max_decisions", "decisions", 1000
    work = "decisions"
    golden = "`model.band.band_solve`"
    columns = (("engine clocks median", "engine_clocks_median"),
               ("model estimate median", "model_cycles_median"),
               ("decisions max", "decisions_max"))

    def expect(self, puzzle, bound, band):
        from slitherlink.model.band import band_solve
        start = time.perf_counter()
        banded = band_solve(puzzle, band=band, max_solutions=2, max_decisions=bound)
        return self._outcome(banded.outcome, banded.counters(), banded.cycles(band), start)

    def estimate(self, expected):
        return expected["cycles"]

    def extra(self, answer, cycles):
        return {"engine_clocks": int(answer["counters"].get("engine_clocks", 0)),
                "trail_full": "trail was full" in (answer.get("message") or "")}

    def summary_extra(self, recs):
        return {"engine_clocks_median": _median([r["engine_clocks"] for r in recs]),
                "model_cycles_median": _median([r["model_cycles"] for r in recs]),
                "decisions_max": max(r["decisions"] for r in recs),
                "trail_full": sum(bool(r["trail_full"]) for r in recs)}

    def encode_reply(self, status, rows, cols, solution):
        return P.encode_deduce_result(status, rows, cols, solution=solution, unique=True)

    def note(self, band):
        return (f"the deduction engine (hw/deduce/engine.py, band {band}: its state in "
                f"memories, {band} framed row(s) a clock) in the PicoRV32 SoC, driven by "
                f"the C firmware (firmware/src/deduce.c); `engine clocks` = the clocks "
                f"the engine was busy, part of `cycles`.")


PAPER, DEDUCE = PaperMode(), DeduceMode()
#: every mode by its name
BY_NAME = {mode.name: mode for mode in (DEDUCE, PAPER)}
#: ``--mode`` -> the modes it runs, the first on every puzzle of the sample
MODES = {**{name: (mode,) for name, mode in BY_NAME.items()}, "both": (DEDUCE, PAPER)}


def record(mode, row, answer, *, puzzles, clock_hz, bauds, bound, cls, build, wall):
    """The record of one puzzle from the board's ``answer`` (``status``, ``solution``,
    ``message``, ``counters``: a :class:`host.result.Result`'s, or a CRASH) on the build
    ``build`` of class ``cls``, which took ``wall`` seconds of simulation."""
    if answer["status"] in ("CRASH", "ERROR"):
        verdict, note = "wrong", answer["message"]
    else:
        verdict, note = judge(row, answer, puzzles)
    counters = answer["counters"]
    cycles = int(counters.get("cycles", 0))
    extra = mode.extra(answer, cycles)
    if extra.get("trail_full"):
        note = "; ".join(filter(None, [note, "the hardware trail was full"]))
    solve_bytes, reply_bytes = mode.frame_bytes(row["puzzle"], answer["status"], bound)
    uart = {b: BITS_PER_BYTE * (solve_bytes + reply_bytes) / b for b in bauds}
    return {
        "name": row["name"], "size": row["size"], "rows": row["rows"], "cols": row["cols"],
        "cells": row["cells"], "clues": int(row["clues"]), "source": row["source"],
        "difficulty": row["difficulty"], "unique": row["unique"],
        "ref_seconds": float(row["ref_seconds"]), "class": cls, "build": build, "mode": mode.name,
        "status": answer["status"], "verdict": verdict,
        **{name: int(counters.get(name, 0)) for name in mode.counters}, **extra,
        "cycles": cycles, "clock_hz": clock_hz,
        "seconds_at_clock": cycles / clock_hz if clock_hz else None,
        "seconds_at_50mhz": cycles / paper.CLOCK_HZ,
        "solve_frame_bytes": solve_bytes, "reply_frame_bytes": reply_bytes,
        **{f"uart_{b}": uart[b] for b in bauds},
        **{f"e2e_{b}": uart[b] + (cycles / clock_hz if clock_hz else 0.0) for b in bauds},
        "golden_status": None, "golden_match": None, "model_cycles": None,
        "model_seconds": None, "sim_wall_seconds": round(wall, 3), "note": note, "peers": {},
    }


def compare(mode, rec, expected):
    """Set ``golden_status``, ``golden_match``, ``model_cycles`` and ``model_seconds`` of
    a record: its status and every counter of the mode must be the golden model's."""
    rec["golden_status"] = expected["status"]
    rec["model_cycles"] = expected["cycles"]
    rec["model_seconds"] = expected["seconds"]
    differ = [k for k in mode.counters if rec.get(k) != expected["counters"][k]]
    rec["golden_match"] = rec["status"] == expected["status"] and not differ
    rec["note"] = "; ".join(n for n in rec.get("note", "").split("; ") if n and MISMATCH not in n)
    if not rec["golden_match"] and rec["status"] != "CRASH":
        what = [f"{k} {rec.get(k)} != {expected['counters'][k]}" for k in differ]
        if rec["status"] != expected["status"]:
            what.insert(0, f"status {rec['status']} != {expected['status']}")
        rec["note"] = "; ".join(filter(None, [rec["note"], f"{MISMATCH}: {', '.join(what)}"]))
    return rec
