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

from slitherlink.spec.protocol import Solve, solve_length
from slitherlink.spec.target import PAPER_CLOCK_HZ

from ..device import (BoardError, NoDeduceEngine, NotSent, PortError, TooLarge, close_all,
                      drop, open_connection)
from ..device.pipeline import Inputs, Job, Pipeline
from ..errors import OptionError
from ..puzzle import Puzzle, transpose_colouring
from . import DEFAULT_MODE, Mode, Result, chosen_mode

__all__ = ["solve", "solve_on", "solve_stream", "answer_result", "check_options", "end_of_run",
           "MAX_CHECKS", "RECONNECTS"]

#: Once a connection of a run has worked, how many puzzles in a row may each fail to make a
#: new one (a board reset, or unplugged and plugged back) before the rest of the run is not
#: sent (:class:`host.device.NotSent`); a run whose first connection fails sends nothing more.
RECONNECTS = 2

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
                  timeout=None, mode=None, baud=None, **_):
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
    for name, value in (("--time-limit", time_limit), ("--timeout", timeout),
                        ("--baud", baud)):
        if value is not None and not value > 0:
            raise OptionError(f"{name} must be positive, not {value}")


def end_of_run():
    """The end of a program's solving: close every connection (a device at a fast rate is
    asked back to its start rate) and stop every virtual board."""
    close_all()


def _port(port):
    if port != "auto":
        return port
    from ..ports import find_board
    try:
        return find_board()
    except LookupError as error:
        raise PortError(str(error)) from None


def solve(puzzle, *, unique=False, time_limit=None, port=None, baud=None, timeout=None,
          retries=None, max_checks=None, max_decisions=None, mode=None, counters=True):
    """Solve ``puzzle`` on the board at ``port`` (or on the virtual board).

    ``mode`` is ``"deduce"`` (the deduction engine) or ``"paper"`` (the paper's search), a
    name or a :class:`Mode`; ``None``: the default mode, deduce, or paper on a build without
    the deduction engine.  ``counters`` asks for the mode's counters (SOLVE's FLAG_COUNTERS:
    the reply is RESULT or DEDUCE_RESULT, else ANSWER, whose result has none).
    ``time_limit`` (seconds) ends the search with an ABORT; ``max_checks`` (paper mode) or
    ``max_decisions`` (deduce mode) bounds it exactly (status LIMIT); ``baud`` is the rate
    to switch to (default: the fastest the board offers); ``timeout`` is how long the
    device may stay silent before a request is repeated (default: derived from the baud
    rate and the frame lengths); ``retries`` how many times in a row a request is sent
    again (default :data:`host.device.DEFAULT_RETRIES`).  Raises a
    :class:`host.device.BoardError`, or :class:`host.errors.OptionError` for an option it
    cannot take.
    """
    for _, outcome in solve_stream([(None, puzzle)], unique=unique, time_limit=time_limit, port=port,
                                   baud=baud, timeout=timeout, retries=retries,
                                   max_checks=max_checks, max_decisions=max_decisions,
                                   mode=mode, counters=counters):
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    raise BoardError("internal: no answer for the puzzle")


def solve_stream(puzzles, *, unique=False, time_limit=None, port=None, baud=None,
                 timeout=None, retries=None, max_checks=None, max_decisions=None, mode=None,
                 counters=True, depth=None, opener=None):
    """Solve the puzzles of ``puzzles``, an iterable of ``(key, item)`` pairs (read as they
    come: it may be a stream), with the board's queue kept full (at most ``depth`` SOLVEs
    in flight, the board's queue by default; one with ``time_limit``).  Yields ``(key,
    outcome)`` for every pair, in their order: a :class:`Result` (unchecked:
    :func:`host.engines.checked_stream` checks it) or the :class:`host.device.BoardError`
    of that puzzle; an item that is not a :class:`Puzzle` is passed through with outcome
    None.  The other options are
    :func:`solve`'s.  When the link fails, the puzzle in flight the longest fails with the
    error and the others go on over a new connection (``opener()``, if given, makes a
    connected one: tests; by default :func:`host.device.open_connection`).  When no
    connection can be made (a wrong port, a board not programmed), the puzzle fails with the
    error and the rest of the run fails at once with :class:`host.device.NotSent`, not each
    after its own attempts: for the run's first connection, and after :data:`RECONNECTS`
    puzzles in a row without one."""
    check_options(max_checks=max_checks, max_decisions=max_decisions, retries=retries,
                  time_limit=time_limit, timeout=timeout, mode=mode, baud=baud)
    port = _port(port)
    options = dict(unique=unique, max_checks=max_checks or 0,
                   max_decisions=max_decisions or 0, mode=mode, counters=counters)
    # the connection, the last one made, the error that ended the attempts, the attempts
    # in a row that failed
    link = {"connection": None, "last": None, "down": None, "failures": 0}

    def connected():
        if link["down"] is not None:
            raise NotSent(link["down"])
        if link["connection"] is None:
            try:
                link["connection"] = opener() if opener is not None else \
                    open_connection(port, baud=baud, timeout=timeout, retries=retries)
            except BoardError as error:
                link["failures"] += 1
                if link["last"] is None or link["failures"] >= RECONNECTS:
                    link["down"] = error
                raise
            link["last"], link["failures"] = link["connection"], 0
        return link["connection"]

    def make(pair):  # in this thread: the connection is this thread's
        key, item = pair
        if not isinstance(item, Puzzle):
            return Job(None, key=(key, None), done=True)
        try:
            return _job(connected(), item, key=key, **options)
        except (TooLarge, NoDeduceEngine) as error:
            return Job(item, key=(key, None), error=error)
        except BoardError as error:  # no connection: this puzzle fails, the next retries
            _drop(link)
            return Job(item, key=(key, None), error=error)

    inputs = Inputs(puzzles if isinstance(puzzles, (list, tuple)) else iter(puzzles), make)
    while True:
        job = _next_job(inputs)  # connect only when a puzzle is there to solve
        if job is None:
            return
        if job.state == "done":  # passed through, or failed before it could be sent
            yield job.key[0], _outcome(link["last"], job)
            continue
        try:  # one put back after a failure: on a new connection
            connection = connected()
        except BoardError as error:
            _drop(link)
            job.fail(error, 0.0)
            yield job.key[0], _outcome(link["last"], job)
            continue
        inputs.put_back([job])
        pipeline = Pipeline(connection, depth=depth, time_limit=time_limit)
        try:
            for job in pipeline.run(inputs):
                yield job.key[0], _outcome(connection, job)
            return
        except BoardError:
            _drop(link)
            for job in list(pipeline.window):  # the failed one first, then the rest
                if job.state == "done":
                    pipeline.window.popleft()
                    yield job.key[0], _outcome(connection, job)
                else:
                    break
            for job in pipeline.window:
                job.reset()
            inputs.put_back(pipeline.window)
        except GeneratorExit:  # the caller has what it wanted: the session stays open
            raise
        except BaseException:
            _drop(link)  # after a failure or Ctrl-C: start afresh next time
            raise


def _next_job(inputs):
    while not inputs.exhausted:
        job = inputs.get(timeout=0.05)
        if job is not None:
            return job
    return None


def _drop(link):
    if link["connection"] is not None:
        drop(link["connection"])
        link["connection"] = None


def solve_on(connection, puzzle, *, unique=False, time_limit=None, max_checks=0,
             max_decisions=0, mode=None, counters=True):
    """Solve ``puzzle`` through an open :class:`host.device.Connection` (see :func:`solve`);
    returns a :class:`Result` (unchecked: the engine registry checks it)."""
    if connection.version is None:
        connection.ping()
    job = _job(connection, puzzle, unique=unique, max_checks=max_checks,
               max_decisions=max_decisions, mode=mode, counters=counters, key=None)
    for done in Pipeline(connection, time_limit=time_limit).run([job]):
        outcome = _outcome(connection, done)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    raise BoardError("internal: no answer for the puzzle")


def _job(connection, puzzle, *, unique, max_checks, max_decisions, mode, counters, key):
    """The :class:`Job` of ``puzzle`` on this build: its mode (deduce by default, paper on a
    build without the deduction engine), its bound, sent transposed when only its transpose
    fits; :class:`TooLarge`, :class:`NoDeduceEngine` or, paper mode on a build without
    the accelerator, :class:`DeviceError` before anything is sent."""
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
    if mode is Mode.PAPER and not version.accelerator_ok:
        raise connection.no_accelerator("reports no ACCEL_OK in its VERSION")
    sent = puzzle.transposed() if transposed else puzzle
    label = (f"{puzzle.size} puzzle (sent transposed, {sent.size})" if transposed
             else f"{puzzle.size} puzzle")
    return Job(sent, mode=mode, unique=unique, bound=bound, counters=counters, label=label,
               key=(key, (transposed, fallback)))


def _outcome(connection, job):
    """What a done job gives: its error, None (a pass-through item) or its :class:`Result`."""
    if job.error is not None:
        return job.error
    if job.reply is None:
        return None
    transposed, fallback = job.key[1]
    result = answer_result(job.reply, connection.version, seconds=job.seconds,
                           virtual=connection.virtual, fallback=fallback)
    if transposed:
        result = _transposed_back(result, connection.version)
    return result


def _fits_transposed(connection, puzzle):
    """Whether ``puzzle`` must be sent transposed: False when it fits the build as it
    is, True when only its transpose fits; :class:`TooLarge` when neither does."""
    v = connection.version
    if solve_length(puzzle.rows, puzzle.cols) <= v.max_payload:
        if puzzle.rows <= v.max_rows and puzzle.cols <= v.max_cols:
            return False
        if puzzle.cols <= v.max_rows and puzzle.rows <= v.max_cols:
            return True
    raise TooLarge(f"a {puzzle.size} puzzle is larger than {connection.what} was built "
                   f"for ({v.max_rows}x{v.max_cols}), also transposed")


def answer_result(reply, version, *, seconds=0.0, virtual=False, fallback=None):
    """The :class:`Result` (unchecked) of an answer of the build of ``version`` (its
    VERSION reply): ANSWER (no counters), RESULT or DEDUCE_RESULT; ``seconds`` from the
    SOLVE to the answer, ``virtual``: from the virtual board, ``fallback``: a note of the
    mode chosen for it."""
    v = version
    counters = {}
    if reply.counters is not None:
        counters = dict(reply.counters)
        counters["cycles"] = reply.cycles
        counters["clock_hz"] = v.clock_hz
        counters["seconds_at_clock"] = reply.cycles / v.clock_hz if v.clock_hz else 0.0
        counters["seconds_at_50mhz"] = reply.cycles / PAPER_CLOCK_HZ
    status = reply.status
    solutions = [reply.solution] if status.solved and reply.solution is not None else []
    result = Result("board", status, solutions[0] if solutions else None, solutions,
                    seconds, counters, mode=reply.mode.name.lower())
    key = "decisions" if reply.mode is Mode.DEDUCE else "checks"
    steps = f" after {counters[key]} {key}" if key in counters else ""
    if reply.aborted:
        result.message = f"stopped by the time limit{steps}"
    elif reply.trail_full:
        result.message = f"stopped: the hardware trail was full{steps}"
    on_virtual = None if not virtual else \
        "on the virtual board (Verilator; cycles are exact)" if reply.counters is not None \
        else "on the virtual board (Verilator): the times are the simulator's; --format json " \
             "gives the board's exact cycles"
    for note in (fallback, on_virtual):
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
