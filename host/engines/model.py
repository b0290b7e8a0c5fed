"""Engine ``model``: the golden models in Python, in either mode (``mode=``, ``--mode``).

* ``mode="deduce"`` (the default, :data:`host.engines.DEFAULT_MODE`): the
  deduction engine's model (:mod:`model.deduce`, through :mod:`host.engines.deduce`),
  bounded by ``max_decisions``; its counters and estimated ``cycles``;
* ``mode="paper"``: the paper's search (:mod:`model.paper`), bounded by
  ``max_checks``; its counters (checks, backtracks, candidates, floods,
  flood_iterations).
"""

import time

from slitherlink.model.paper import search

from .. import protocol
from ..errors import OptionError, TooLargeForEngine
from . import Mode, Result, Stopwatch, chosen_mode
from . import deduce as deduce_engine

#: Default step limit of the paper's search: about a minute of Python, far beyond any
#: 10x10 we know.
DEFAULT_MAX_CHECKS = 200_000_000
#: Default time limit, in seconds, of either mode when ``--time-limit`` gives none: the
#: golden models are slow on large grids (a blank 200x200 runs for minutes in deduce
#: mode), and a run ends with a clear message (status LIMIT) within this bound.
DEFAULT_TIME_LIMIT = 60.0


def check_options(*, mode=None, max_checks=None, max_decisions=None, **_):
    """Each mode takes its own bound: an :class:`host.errors.OptionError` (a usage error)
    for the other mode's."""
    mode = chosen_mode(mode)
    if mode is Mode.DEDUCE and max_checks is not None:
        raise OptionError("--max-checks bounds the paper's search (--mode paper); in deduce "
                          "mode give --max-decisions")
    if mode is Mode.PAPER and max_decisions is not None:
        raise OptionError("--max-decisions bounds the deduction engine (--mode deduce); in "
                          "paper mode give --max-checks")


def solve(puzzle, *, unique=False, time_limit=None, mode=None, max_checks=None,
          max_decisions=None, max_solutions=None):
    """Solve with the golden model of ``mode``.  Paper mode: the paper-faithful search,
    bounded by ``max_checks`` (exact and repeatable) and by ``time_limit`` seconds
    (looked at every 65,536 checks).  Deduce mode: deduction, probing and depth-first
    search, bounded by ``max_decisions`` and ``time_limit``."""
    check_options(mode=mode, max_checks=max_checks, max_decisions=max_decisions)
    given = time_limit is not None
    time_limit = time_limit if given else DEFAULT_TIME_LIMIT
    if chosen_mode(mode) is Mode.DEDUCE:
        result = deduce_engine.solve(puzzle, unique=unique, time_limit=time_limit,
                                     max_decisions=max_decisions, max_solutions=max_solutions)
        result.engine = "model"
        if not given and result.message:
            result.message += " (the model engine's default; --time-limit sets another)"
        return result
    if max(puzzle.rows, puzzle.cols) > protocol.MAX_GRID:
        # the paper's search, as the hardware runs it, is for grids the protocol carries;
        # beyond, it only grows slow (about a minute for a blank 200x200)
        raise TooLargeForEngine(f"the model engine in paper mode takes grids up to "
                                f"{protocol.MAX_GRID}x{protocol.MAX_GRID} (the hardware's "
                                f"largest), not {puzzle.size}: use --mode deduce or "
                                f"--engine sat")
    wanted = max_solutions if max_solutions is not None else (2 if unique else 1)
    started = time.monotonic()
    with Stopwatch() as clock:
        outcome = search(puzzle, max_solutions=wanted,
                         max_checks=DEFAULT_MAX_CHECKS if max_checks is None else max_checks,
                         deadline=started + time_limit)
    found = len(outcome.solutions)
    status = Result.status_for(min(found, 2), wanted_unique=unique or wanted > 1,
                               exhausted=outcome.exhausted)
    result = Result("model", status, outcome.solutions[0] if found else None,
                    list(outcome.solutions), clock.seconds, outcome.counters.as_dict(),
                    mode="paper")
    if outcome.limit_reached:
        result.message = f"stopped after {outcome.counters.checks} checks"
        if time.monotonic() >= started + time_limit:
            result.message = (f"time limit of {time_limit:g} s reached after "
                              f"{outcome.counters.checks} checks"
                              + ("" if given else " (the model engine's default; "
                                 "--time-limit sets another)"))
    return result  # checked by host.engines.checked
