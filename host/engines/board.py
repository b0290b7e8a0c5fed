"""Engine ``board``: solve on the FPGA board, or on the virtual board, over a UART.

docs/design.md section 4: the host sends the puzzle in a SOLVE frame through a
connection of the device session (:mod:`host.device`).  In paper mode
(``mode="paper"``) the SoC's firmware runs the paper's search with the
accelerator (section 3) and answers with a RESULT frame; in deduce mode
(``mode="deduce"``, the default, :data:`host.engines.DEFAULT_MODE`: SOLVE's
DEDUCE flag) it runs the deduction engine (docs/deduce.md) and answers with a
DEDUCE_RESULT frame.  Either carries the status, the colouring and the mode's
counters, ``cycles`` being the SoC's own count from "puzzle loaded" to "answer
ready".  This module turns that reply into a :class:`Result` (its answers are
checked by the rules checker, :func:`host.engines.checked`, once).

Before the SOLVE, from the build's VERSION: a puzzle larger than the build is
refused (:class:`TooLarge`), and so is deduce mode on a build without the
deduction engine (:class:`NoDeduceEngine`; with no mode asked, such a build
solves in paper mode, and the result says so).  A puzzle that fits the build
only transposed (an R x C puzzle on a build of at least C x R) is sent
transposed and its solution transposed back (:meth:`Puzzle.transposed`; the
counters are those of the transposed puzzle, and ``counters["transposed"]``
says so).

``solve(puzzle, port="/dev/ttyUSB1")`` talks to a real board (the Arty A7's
FT2232, second interface; ``port="auto"`` finds it, :mod:`host.ports`);
``solve(puzzle)`` with no port starts the virtual board.  Errors are
:class:`host.device.BoardError`\\ s with one-line messages and an exit code,
options the board cannot take :class:`host.errors.OptionError`.
"""

from slitherlink.spec.protocol import Solve
from slitherlink.spec.target import PAPER_CLOCK_HZ

from .. import protocol as P
from ..device import NoDeduceEngine, PortError, TooLarge, drop, open_connection
from ..errors import OptionError
from ..puzzle import transpose_colouring
from . import DEFAULT_MODE, Mode, Result, chosen_mode

__all__ = ["solve", "solve_on", "check_options", "MAX_CHECKS"]

#: The largest --max-checks (or, in deduce mode, --max-decisions) the SOLVE request
#: carries (0 means no bound).
MAX_CHECKS = (1 << (8 * Solve.field("max_checks").size)) - 1


def _bound(mode, max_checks, max_decisions):
    """SOLVE's ``max_checks`` field: the checks of paper mode or the decisions of deduce
    mode; the other mode's bound is an :class:`host.errors.OptionError`."""
    if mode is Mode.DEDUCE:
        if max_checks:
            raise OptionError("--max-checks bounds the paper's search (--mode paper); "
                              "in deduce mode give --max-decisions")
        return max_decisions or 0
    if max_decisions:
        raise OptionError("--max-decisions bounds the deduction engine (--mode deduce); "
                          "in paper mode give --max-checks")
    return max_checks or 0


def check_options(*, max_checks=None, max_decisions=None, retries=None, time_limit=None,
                  timeout=None, mode=None, **_):
    """Raise :class:`host.errors.OptionError` (one line) for a value the board cannot take;
    ``host/solve.py`` calls it before solving."""
    mode = chosen_mode(mode)
    for name, value in (("--max-checks", max_checks), ("--max-decisions", max_decisions)):
        if value is not None and not 0 <= value <= MAX_CHECKS:
            raise OptionError(f"{name} {value} is beyond what the board takes "
                              f"(at most {MAX_CHECKS}, a 32-bit count)")
    _bound(mode, max_checks, max_decisions)
    if retries is not None and retries < 0:
        raise OptionError(f"--retries must be 0 or more, not {retries}")
    for name, value in (("--time-limit", time_limit), ("--timeout", timeout)):
        if value is not None and not value > 0:
            raise OptionError(f"{name} must be positive, not {value}")


def solve(puzzle, *, unique=False, time_limit=None, port=None, baud=None, timeout=None,
          retries=None, max_checks=None, max_decisions=None, mode=None):
    """Solve ``puzzle`` on the board at ``port`` (or on the virtual board).

    ``mode`` is ``"deduce"`` (the deduction engine; reply DEDUCE_RESULT) or
    ``"paper"`` (the paper's search; reply RESULT), a name or a :class:`Mode`;
    ``None``: the default mode, deduce, or paper on a build without the deduction
    engine.  ``time_limit`` (seconds) ends the search with an ABORT; ``max_checks``
    (paper mode) or ``max_decisions`` (deduce mode) bounds it exactly (status LIMIT);
    ``timeout`` is how long the device may stay silent before a request is repeated
    (default: derived from the baud rate and the frame lengths); ``retries`` how many
    times in a row a request is sent again (default
    :data:`host.device.DEFAULT_RETRIES`).  Raises a :class:`host.device.BoardError`, or
    :class:`host.errors.OptionError` for an option it cannot take.
    """
    check_options(max_checks=max_checks, max_decisions=max_decisions, retries=retries,
                  time_limit=time_limit, timeout=timeout, mode=mode)
    if port == "auto":
        from ..ports import find_board
        try:
            port = find_board()
        except LookupError as error:
            raise PortError(str(error)) from None
    connection = open_connection(port, baud=baud, timeout=timeout, retries=retries)
    try:
        return solve_on(connection, puzzle, unique=unique, time_limit=time_limit,
                        max_checks=max_checks or 0, max_decisions=max_decisions or 0,
                        mode=mode)
    except (TooLarge, NoDeduceEngine):
        raise  # the conversation is still in step
    except BaseException:
        drop(connection)  # after a failure or Ctrl-C: start afresh next time
        raise


def solve_on(connection, puzzle, *, unique=False, time_limit=None, max_checks=0,
             max_decisions=0, mode=None):
    """Solve ``puzzle`` through an open :class:`host.device.Connection` (see
    :func:`solve`); returns a :class:`Result` (unchecked: the engine registry checks
    it)."""
    version = connection.version or connection.ping()
    fallback = None
    if mode is None and DEFAULT_MODE is Mode.DEDUCE and not version.deduce_ok \
            and not max_decisions:
        mode, fallback = Mode.PAPER, "paper mode: this build has no deduction engine"
    mode = chosen_mode(mode)
    bound = _bound(mode, max_checks, max_decisions)
    transposed = _fits_transposed(connection, puzzle)
    if mode is Mode.DEDUCE and not version.deduce_ok:
        raise connection.no_deduce("reports no DEDUCE_OK in its VERSION")
    sent = puzzle.transposed() if transposed else puzzle
    label = (f"{puzzle.size} puzzle (sent transposed, {sent.size})" if transposed
             else f"{puzzle.size} puzzle")
    reply, seconds = connection.request_solve(sent, mode=mode, unique=unique, bound=bound,
                                              time_limit=time_limit, label=label)
    result = _result(connection, reply, seconds, fallback)
    if transposed:
        result = _transposed_back(result, version)
    return result


def _fits_transposed(connection, puzzle):
    """Whether ``puzzle`` must be sent transposed: False when it fits the build as it
    is, True when only its transpose fits; :class:`TooLarge` when neither does."""
    v = connection.version
    if puzzle.rows <= v.max_rows and puzzle.cols <= v.max_cols:
        return False
    if puzzle.cols <= v.max_rows and puzzle.rows <= v.max_cols:
        return True
    raise TooLarge(f"a {puzzle.size} puzzle is larger than {connection.what} was built "
                   f"for ({v.max_rows}x{v.max_cols}), also transposed")


def _result(connection, reply, seconds, fallback=None):
    """The :class:`Result` of a RESULT or DEDUCE_RESULT reply."""
    v = connection.version
    counters = dict(reply.counters)
    counters["cycles"] = reply.cycles
    counters["clock_hz"] = v.clock_hz
    counters["seconds_at_clock"] = reply.cycles / v.clock_hz if v.clock_hz else 0.0
    counters["seconds_at_50mhz"] = reply.cycles / PAPER_CLOCK_HZ
    status = reply.status
    solutions = [reply.solution] if status.solved and reply.solution is not None else []
    result = Result("board", status, solutions[0] if solutions else None, solutions,
                    seconds, counters, mode=reply.mode.name.lower())
    steps = f"{counters.get('decisions', 0)} decisions" if reply.mode is Mode.DEDUCE \
        else f"{counters.get('checks', 0)} checks"
    if reply.aborted:
        result.message = f"stopped by the time limit after {steps}"
    elif getattr(reply, "trail_full", False):
        result.message = f"stopped: the hardware trail was full after {steps}"
    for note in (fallback, "on the virtual board (Verilator; cycles are exact)"
                 if connection.virtual else None):
        if note:
            result.message = (result.message + "; " if result.message else "") + note
    return result


def _transposed_back(result, version):
    """The result of a transposed puzzle (see :func:`_fits_transposed`) as the result of
    the puzzle asked: its solutions transposed back; the counters stay the device's."""
    result.solutions = [transpose_colouring(s) for s in result.solutions]
    result.solution = result.solutions[0] if result.solutions else None
    result.counters["transposed"] = True
    note = (f"solved transposed: the build is {version.max_rows}x{version.max_cols} "
            f"(the counters are those of the transposed puzzle)")
    result.message = f"{result.message}; {note}" if result.message else note
    return result
