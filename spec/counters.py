"""The counters of a solve, declared once: each mode's list, in order.

The golden models count them (``model.paper.Counters``, ``model.deduce.Counters``), the
hardware and the firmware count the same numbers, and the UART protocol carries them
(:mod:`spec.protocol`'s RESULT and DEDUCE_RESULT).  Everything that lists them follows
from the tuples below: the models' dataclasses, the payload layouts, the deduction
engine's counter registers (:mod:`spec.registers`) and the firmware's copy of them into a
reply (X-macros of the generated ``slk_protocol.h``).
"""

from dataclasses import dataclass

__all__ = ["Counter", "PAPER_COUNTERS", "DEDUCE_COUNTERS", "ENGINE_CLOCKS", "names"]


@dataclass(frozen=True)
class Counter:
    """One counter: its ``name`` (the models', the protocol's and the registers'), what it
    counts, and for deduce mode whether the deduction engine keeps it (``engine``: a counter
    register) or the firmware does."""
    name: str
    doc: str
    engine: bool = True


#: Paper mode (paper section 3.1): ``model.paper.Counters``, RESULT's counters (u64 each).
PAPER_COUNTERS = (
    Counter("checks", "partial-condition checks, one per option tried (model.paper.Counters)"),
    Counter("backtracks", "levels that ran out of options"),
    Counter("candidates", "fully assigned states examined"),
    Counter("floods", "runs of the flood array"),
    Counter("flood_iterations", "flood array iterations (its FLOOD_ITERATIONS register), summed"),
)

#: Deduce mode (docs/design.md section 6): ``model.deduce.Counters``, DEDUCE_RESULT's
#: counters (u32 each) and, those with ``engine``, the deduction engine's counter registers.
DEDUCE_COUNTERS = (
    Counter("sweeps", "clocks of the rule array"),
    Counter("floods", "runs of the two floods (both at once)"),
    Counter("flood_iterations", "clocks of the floods (the longer of the two per run)"),
    Counter("label_runs", "runs of the label stage"),
    Counter("label_iterations", "clocks of the label stage"),
    Counter("probes", "literals tried by the probing sequencer"),
    Counter("probe_hits", "probes that failed and fixed the other colour"),
    Counter("decisions", "branches of the search"),
    Counter("backtracks", "decisions undone to try the other colour"),
    Counter("saves", "state snapshots (probes and decisions)"),
    Counter("restores", "state restores (probes and backtracks)"),
    Counter("solutions", "solutions found", engine=False),
)

#: The deduction engine's busy clocks: its last counter register (``clocks``) and
#: DEDUCE_RESULT's ``engine_clocks``; not a counter of the model (whose cycle estimate is
#: its counterpart).
ENGINE_CLOCKS = Counter("clocks", "clocks the deduction engine was busy (part of cycles; not a "
                                  "counter of the model, whose cycle estimate is its counterpart)")


def names(counters):
    """The names of ``counters``, in order."""
    return tuple(c.name for c in counters)
