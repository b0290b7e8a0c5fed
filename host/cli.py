"""The command line ``host/solve.py``: read puzzles, solve them, print verified solutions.

``host/solve.py [options] PUZZLE...`` where a PUZZLE is a file (plain grid,
Loopy id or puzz.link URL, detected), a directory (its ``*.txt``, sorted), a
Loopy game id, a puzz.link URL, or ``-`` for standard input: a stream, one Loopy id,
puzz.link URL or file name per line, solved as it comes.  Inputs are read
within the limits of :mod:`host.formats` (file size, grid size, time); an input that
cannot be read is reported in one line and the run goes on with the others.

Streaming.  An engine with a ``solve_stream`` (the board: its queue kept full,
:func:`host.engines.board.solve_stream`) solves the inputs as they are read, several in
flight; the others one at a time.  Answers are written as they come, in input order
(``--format jsonl``: one JSON record per line, the fields of ``--format json``); on a
terminal a progress line on standard error shows a long run's progress.  The board is
asked for its counters only when they are shown (``--format json`` and ``jsonl``).

Engines.  ``--engine`` names an engine of :data:`host.engines.ENGINES` (the
FPGA board, ``board``, is one of them, and the default:
:data:`host.engines.DEFAULT_ENGINE`).  ``--mode paper|deduce`` chooses what the
``model`` and ``board`` engines run (:data:`host.engines.MODAL`; without it each
runs the default mode, :data:`host.engines.DEFAULT_MODE`, deduce); given with any
other engine it is a usage error.  Each engine receives only the options its
``solve`` accepts (``--port``, ``--baud``, ``--timeout``, ``--retries`` for the board;
``--max-checks`` for the paper mode of the model and the board,
``--max-decisions`` for their deduce mode; ``--time-limit`` where
supported); an option given for an engine that does not take it is a usage
error.  An engine module may define ``check_options(**options)`` raising
ValueError for a value it cannot take: that is a usage error too, reported
before anything is solved.

A device failure is reported by raising an exception that has an ``exit_code``
attribute (one of :class:`host.errors.ExitCode`) and a one-line ``str()``; or
by returning a Result with status ERROR and, optionally, an ``exit_code``
attribute set on it.  Every answer is checked by the rules checker once, in
:func:`host.engines.checked`: a solution that fails is never shown, the puzzle
is reported as an engine error.

An engine module may define ``end_of_run()``, called at the end of the run (the board closes
its connections there).

``--verbose`` / ``-v`` (repeatable) turns on Python logging on standard error:
``-v`` logs every frame sent to and received from a board (hex and decoded
type), retries and timeouts; ``-vv`` also the raw bytes read and the link
timing.
"""

import argparse
import inspect
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

from slitherlink.spec.exits import SEVERAL_PUZZLES

from .errors import EXIT_CODES, ExitCode
from .formats import FORMATS, MAX_INPUT_BYTES, iter_puzzles, write_puzzle
from .puzzle import MAX_SIDE, PuzzleError
from .render import render_json, render_svg, render_text, render_unicode
from .result import Result, Status

__all__ = ["ExitCode", "EXIT_CODES", "engine_names", "default_engine",
           "resolve_engine", "exit_code_for", "streamed_outcome", "json_line", "main"]

PROG = "host/solve.py"

#: the formats whose records carry the counters: the board is asked for them only then
COUNTER_FORMATS = ("json", "jsonl")
#: seconds into a run after which a progress line is shown on a terminal
PROGRESS_AFTER = 1.0

#: CLI option -> keyword of an engine's solve()
ENGINE_OPTIONS = {
    "time_limit": "--time-limit", "max_checks": "--max-checks",
    "max_decisions": "--max-decisions", "mode": "--mode",
    "port": "--port", "baud": "--baud", "timeout": "--timeout", "retries": "--retries",
}


# --- engines --------------------------------------------------------------------------

def _engines():
    from . import engines
    return engines


def engine_names():
    """The engine names --engine accepts, with their one-line descriptions."""
    return {name: description for name, (_, description) in _engines().ENGINES.items()}


def engine_available(name):
    """Whether engine ``name`` can be imported here (its packages are installed)."""
    try:
        _engines().engine_module(name)
    except Exception:  # noqa: BLE001 -- a broken engine must not break the others
        return False
    return True


def default_engine():
    """:data:`host.engines.DEFAULT_ENGINE` (the board) when it can run here, else ``model``."""
    default = _engines().DEFAULT_ENGINE
    return default if engine_available(default) else "model"


def resolve_engine(name):
    """The checked ``solve`` function of engine ``name``; raises EngineUnavailable."""
    return _engines().get_engine(name)


def check_engine_options(name, kwargs):
    """Run the engine module's ``check_options(**kwargs)``, if it has one."""
    module = _engines().engine_module(name)
    checker = getattr(module, "check_options", None)
    if checker is not None:
        checker(**kwargs)


def engine_kwargs(solve, options):
    """The keywords of ``options`` (name -> value, None = not given) that ``solve``
    accepts.  Raises ValueError naming a given option that the engine does not take."""
    parameters = inspect.signature(solve).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    kwargs = {}
    for key, value in options.items():
        if value is None:
            continue
        if takes_any or key in parameters:
            kwargs[key] = value
        else:
            raise ValueError(f"{ENGINE_OPTIONS.get(key, key)} is not an option of this engine")
    return kwargs


# --- outcome of one puzzle ------------------------------------------------------------

def exit_code_for(status, *, unique):
    """The exit code of a result status."""
    if status is Status.SOLVED_UNIQUE:
        return ExitCode.OK
    if status is Status.SOLVED:
        # with --unique, a solution whose uniqueness was not proved means a limit stopped it
        return ExitCode.LIMIT if unique else ExitCode.OK
    if status is Status.MULTIPLE:
        return ExitCode.MULTIPLE if unique else ExitCode.OK
    if status is Status.NO_SOLUTION:
        return ExitCode.NO_SOLUTION
    if status is Status.LIMIT:
        return ExitCode.LIMIT
    return ExitCode.ENGINE


def _model_time_limit():
    from slitherlink.host.engines.model import DEFAULT_TIME_LIMIT
    return DEFAULT_TIME_LIMIT


class Outcome:
    """What happened to one input: a puzzle and its result, or an input error."""

    def __init__(self, label, puzzle=None, result=None, code=ExitCode.OK, error="", wall=0.0,
                 engine=""):
        self.label, self.puzzle, self.result = label, puzzle, result
        self.code, self.error, self.wall = code, error, wall
        self.engine = result.engine if result is not None else engine
        self.mode = None  # the mode asked of an engine that has modes

    @property
    def name(self):
        return (self.puzzle.name if self.puzzle is not None and self.puzzle.name
                else self.label)


def solve_one(puzzle, solve, kwargs, *, unique, label="", engine=""):
    """Run an engine on one puzzle and verify the answer: an :class:`Outcome`."""
    engines = _engines()
    start = time.perf_counter()
    try:
        result = solve(puzzle, unique=unique, **kwargs)
    except engines.EngineUnavailable as error:
        return Outcome(label, puzzle, None, ExitCode.ENGINE, str(error),
                       time.perf_counter() - start, engine)
    except Exception as error:
        code = getattr(error, "exit_code", None)
        if code is None:
            raise  # a bug, not a device failure: let the traceback show
        return Outcome(label, puzzle, None, ExitCode(int(code)), str(error),
                       time.perf_counter() - start, engine)
    wall = time.perf_counter() - start
    if not isinstance(result, Result):
        return Outcome(label, puzzle, None, ExitCode.ENGINE,
                       f"the engine returned {type(result).__name__}, not a Result", wall,
                       engine)
    code = exit_code_for(result.status, unique=unique)
    if result.status is Status.ERROR and getattr(result, "exit_code", None) is not None:
        code = ExitCode(int(result.exit_code))
    error = result.message if result.status is Status.ERROR else ""
    return Outcome(label, puzzle, result, code, error, wall)


# --- output ---------------------------------------------------------------------------

MODE_TEXT = {"deduce": "the deduction engine", "paper": "the paper's search"}


def _counters_text(result):
    return ", ".join(f"{key} {value}" for key, value in result.counters.items()) or "none"


def text_report(outcome, fmt):
    """The text/unicode block of one solved (or failed) puzzle."""
    puzzle, result = outcome.puzzle, outcome.result
    draw = render_unicode if fmt == "unicode" else render_text
    status = result.status.text if result is not None else "error"
    lines = [f"{outcome.name}: {puzzle.size}, engine {outcome.engine}: {status}"]
    if result is None:  # the engine failed before answering: the reason is on stderr
        return lines[0] + f" ({outcome.wall:.4f} s wall)\n"
    if result.message and result.status is not Status.ERROR:
        lines.append(f"note: {result.message}")
    solutions = []
    if result is not None and result.status.solved:
        solutions = list(result.solutions or [result.solution])
    if not solutions:
        lines.append(draw(puzzle).rstrip("\n"))
    for k, colouring in enumerate(solutions, start=1):
        if len(solutions) > 1:
            more = "at least " if result.status is Status.MULTIPLE else ""
            lines.append(f"solution {k} of {more}{len(solutions)}:")
        lines.append(draw(puzzle, colouring).rstrip("\n"))
    if result is not None:
        if getattr(result, "mode", None):
            lines.append(f"mode: {result.mode} ({MODE_TEXT.get(result.mode, result.mode)})")
        if result.counters:  # none when not asked of the board (--format json asks)
            lines.append(f"counters: {_counters_text(result)}")
        lines.append(f"time: {result.seconds:.4f} s engine, {outcome.wall:.4f} s wall")
    return "\n".join(lines) + "\n"


def status_line(outcome):
    """One line: name, size, status (or the input error)."""
    if outcome.puzzle is None:
        return f"input error: {outcome.error}"
    status = outcome.result.status.text if outcome.result is not None else "error"
    extra = f" ({outcome.error})" if outcome.error and outcome.result is None else ""
    return f"{outcome.name}: {outcome.puzzle.size}: {status}{extra} [{outcome.wall:.3f} s]"


class Tally:
    """How a run's puzzles ended, counted as they come: a run keeps its counts, not its
    outcomes, so a long stream on standard input does not grow in memory."""

    def __init__(self):
        self.done = self.solved = 0
        self.counts = {}              # how they ended -> how many, in order of first sight
        self.worst = ExitCode.OK

    def add(self, outcome):
        if outcome.puzzle is None:
            key = "unreadable"
        elif outcome.result is None:
            key = "error"
        else:
            key = outcome.result.status.text
            self.solved += bool(outcome.result.status.solved)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.done += 1
        self.worst = max(self.worst, outcome.code)

    def summary(self, seconds):
        """The summary line of a run over several puzzles."""
        parts = ", ".join(f"{n} {key}" for key, n in self.counts.items())
        return (f"summary: {self.done} puzzles: {parts}; {seconds:.3f} s; "
                f"exit {int(self.worst)} ({ExitCode(self.worst).name.lower()})")


def _safe_name(name, used):
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name).strip("._")
    keep = keep[:60] or "puzzle"
    base, k = keep, 2
    while keep in used:
        keep, k = f"{base}_{k}", k + 1
    used.add(keep)
    return keep


# --- the command line -----------------------------------------------------------------

class _UsageError(Exception):
    """A bad command line; ``str()`` is the one line to print."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(f"{self.prog}: error: {message} (see --help)")


def build_parser():
    engines = engine_names()
    default = default_engine()
    epilog = ["engines:"]
    epilog += [f"  {name:8} {text}" + ("  [default]" if name == default else "")
               for name, text in engines.items()]
    epilog += ["", f"modes (--mode, for {' and '.join(_engines().MODAL)}; default: "
               f"{_engines().DEFAULT_MODE.name.lower()}):",
               "  deduce   the deduction engine (docs/deduce.md); bound: --max-decisions",
               "  paper    the paper's search (section 3); bound: --max-checks"]
    epilog += ["", "puzzle formats (detected): " + "; ".join(
        f"{name}: {text}" for name, text in FORMATS.items()), "", "exit codes:"]
    epilog += [f"  {int(code):3}  {text}" for code, text in EXIT_CODES.items()]
    epilog += [f"  {SEVERAL_PUZZLES}.", "",
               f"input limits: {MAX_INPUT_BYTES:,} bytes per file, standard input or "
               f"argument; grids up to {MAX_SIDE}x{MAX_SIDE} (docs/host.md)."]
    parser = _Parser(
        prog=PROG,
        description="Solve Slitherlink puzzles and print verified solutions.",
        epilog="\n".join(epilog),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("puzzles", nargs="+", metavar="PUZZLE",
                        help="a puzzle file, a directory of *.txt, a Loopy game id, "
                             "a puzz.link URL, or - for standard input")
    parser.add_argument("--engine", "-e", choices=list(engines), default=default,
                        help=f"solver engine (default: {default})")
    parser.add_argument("--mode", choices=list(_engines().MODES), default=None,
                        help="what the model and board engines run: deduce (the deduction "
                             "engine) or paper (the paper's search); default: "
                             f"{_engines().DEFAULT_MODE.name.lower()}")
    parser.add_argument("--unique", "-u", action="store_true",
                        help="search on for a second solution and report whether the "
                             "solution is unique")
    parser.add_argument("--format", "-f", choices=["text", "unicode", "json", "jsonl", "svg"],
                        default="text", help="output format (default: text); json and jsonl: "
                        "one JSON record per line, as answers come, with the counters")
    parser.add_argument("--output", "-o", metavar="PATH",
                        help="write the output to PATH instead of standard output "
                             "(svg with several puzzles: PATH is a directory)")
    parser.add_argument("--convert", choices=list(FORMATS), metavar="FORMAT",
                        help="do not solve: print the puzzles in FORMAT "
                             f"({', '.join(FORMATS)})")
    limits = parser.add_argument_group("limits")
    limits.add_argument("--time-limit", type=_positive_float, metavar="SECONDS",
                        help="stop an engine after SECONDS (engines that support it; the "
                             "model engine's default: "
                             f"{_model_time_limit():g} s)")
    limits.add_argument("--max-checks", type=_positive_int, metavar="N",
                        help="paper mode: stop the search after N partial-condition checks "
                             "(model, board)")
    limits.add_argument("--max-decisions", type=_positive_int, metavar="N",
                        help="deduce mode: stop the search after N decisions (model, board, "
                             "deduce)")
    board = parser.add_argument_group("board engine")
    board.add_argument("--port", metavar="DEVICE",
                       help="serial port of the board, e.g. /dev/ttyUSB1")
    board.add_argument("--baud", type=_positive_int, metavar="RATE",
                       help="the UART rate to switch to (default: the fastest the board "
                            "offers; its start rate, 115200: no switch)")
    board.add_argument("--timeout", type=_positive_float, metavar="SECONDS",
                       help="how long the board may take to answer before a request is "
                            "repeated (default: derived from the baud rate and the "
                            "frame lengths); whatever arrives, a request ends within "
                            "retries + 1 such waits (docs/host.md)")
    board.add_argument("--retries", type=_count, metavar="N",
                       help="how many times in a row a request is sent again after a "
                            "lost or damaged answer (default: "
                            f"{_board_default('DEFAULT_RETRIES')})")
    talk = parser.add_argument_group("messages")
    talk.add_argument("--quiet", "-q", action="store_true",
                      help="print nothing but errors (the exit code tells the outcome)")
    talk.add_argument("--progress", action="store_true",
                      help="a progress line per puzzle on standard error (without it, a "
                           "long run on a terminal shows one line that it keeps up to date)")
    talk.add_argument("--verbose", "-v", action="count", default=0,
                      help="log on standard error: -v every frame sent and received "
                           "(hex, decoded type), retries and timeouts; -vv also raw bytes "
                           "and link timing")
    return parser


def _board_default(name):
    """A default of the board engine for --help, without importing pyserial."""
    from .device import link
    return getattr(link, name)


def _number(kind, least, strictly=False):
    """An argparse converter: ``kind`` (int or float) of at least ``least`` (greater than it
    where ``strictly``), or one clear line."""
    what = "a whole number" if kind is int else "a number"
    bound = f"greater than {least}" if strictly else (
        f"{least} or more" if least == 0 else f"at least {least}")

    def convert(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not (value > least if strictly else value >= least):
            raise argparse.ArgumentTypeError(f"{text!r} must be {bound}")
        return value
    return convert


_count = _number(int, 0)
_positive_int = _number(int, 1)
_positive_float = _number(float, 0, strictly=True)


def main(argv=None, *, stdin=None, stdout=None, stderr=None):
    """Run the command line; returns the exit code (see :class:`ExitCode`)."""
    stdout = stdout if stdout is not None else (sys.stdout or open(os.devnull, "w"))
    stderr = stderr if stderr is not None else (sys.stderr or open(os.devnull, "w"))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(error, file=stderr)
        return ExitCode.USAGE
    except SystemExit as done:  # --help
        return int(done.code or 0)

    def complain(message):
        print(f"{PROG}: {message}", file=stderr)

    if args.puzzles.count("-") > 1:
        complain("'-' (standard input) can be given only once")
        return ExitCode.USAGE

    handler = _start_logging(args.verbose, stderr)
    try:
        return _run(args, stdin, stdout, stderr, complain)
    finally:
        if handler is not None:
            logging.getLogger("slitherlink.host").removeHandler(handler)


def _start_logging(verbose, stderr):
    """-v: INFO (frames, retries), -vv: DEBUG (bytes, timing) of the ``host`` loggers."""
    if not verbose:
        return None
    handler = logging.StreamHandler(stderr)
    handler.setFormatter(logging.Formatter("%(relativeCreated)9.1f ms %(name)s: %(message)s"))
    logger = logging.getLogger("slitherlink.host")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
    return handler


def _run(args, stdin, stdout, stderr, complain):
    items = iter_puzzles(args.puzzles, stdin=stdin)
    count = None  # how many inputs, when known before solving: not of a stream
    if "-" not in args.puzzles or args.format == "svg" or args.convert:
        # files are read first (an svg run needs to know how many puzzles there are);
        # standard input is solved as it comes
        items = list(items)
        count = len(items)
    if args.format == "svg" and count > 1 and not args.output and not args.convert:
        complain("--format svg with several puzzles needs --output DIRECTORY")
        return ExitCode.USAGE

    if args.convert:
        return _convert(args, items, stdout, complain)

    if args.format == "unicode" and not args.output:
        encoding = getattr(stdout, "encoding", None) or "utf-8"
        try:
            "┌─┐│·".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            complain(f"standard output ({encoding}) cannot show box drawing: use "
                     f"--format text, or a UTF-8 locale")
            return ExitCode.USAGE

    engines = _engines()
    if args.mode is not None and args.engine not in engines.MODAL:
        if args.engine in engines.ALIASES:
            name, mode = engines.ALIASES[args.engine]
            complain(f"--engine {args.engine} stands for --engine {name} --mode "
                     f"{mode.name.lower()}: give --engine {name} --mode {args.mode} instead")
        else:
            complain(f"--mode applies to the {' and '.join(engines.MODAL)} engines, not to "
                     f"'{args.engine}'")
        return ExitCode.USAGE
    try:
        solve = resolve_engine(args.engine)
        stream = engines.get_stream(args.engine)
    except engines.EngineUnavailable as error:
        complain(str(error))
        return ExitCode.ENGINE
    options = {"time_limit": args.time_limit, "max_checks": args.max_checks,
               "max_decisions": args.max_decisions, "mode": args.mode,
               "port": args.port, "baud": args.baud, "timeout": args.timeout,
               "retries": args.retries}
    try:
        kwargs = engine_kwargs(solve, options)
        check_engine_options(args.engine, kwargs)
    except ValueError as error:
        complain(f"{error} ('{args.engine}')")
        return ExitCode.USAGE
    if "counters" in inspect.signature(solve).parameters:  # implied by the format
        kwargs["counters"] = args.format in COUNTER_FORMATS

    several = count is None or count > 1
    out_file = None
    if args.output and not (args.format == "svg" and several):
        try:
            out_file = open(args.output, "w", encoding="utf-8")
        except OSError as error:
            complain(f"cannot write {args.output}: {error.strerror or error}")
            return ExitCode.USAGE
    if args.output and args.format == "svg" and several:
        try:
            os.makedirs(args.output, exist_ok=True)
        except OSError as error:
            complain(f"cannot create the directory {args.output}: {error.strerror or error}")
            return ExitCode.USAGE
    document = out_file if out_file is not None else stdout
    documents_to_stdout = args.output is None and args.format in ("json", "jsonl", "svg")

    tally, used_names, repeats = Tally(), set(), Repeats(complain)
    start = time.perf_counter()
    progress = Progress(stderr, count) if not (args.progress or args.quiet or args.verbose) \
        else None
    try:
        solved = _outcomes(items, solve, stream, kwargs, args)
        for index, outcome in enumerate(solved, start=1):
            if outcome.puzzle is None:
                repeats.close()   # the lines in the order of the inputs
                complain(outcome.error)
                if args.format in COUNTER_FORMATS:  # a record for every input, readable or not
                    document.write(json.dumps({
                        "input": outcome.label, "status": "input_error",
                        "message": outcome.error, "exit_code": int(ExitCode.INPUT)}) + "\n")
                    document.flush()
            else:
                if outcome.error:
                    repeats.say(outcome.name, outcome.error)
                _emit(args, outcome, document, used_names, index, count)
                if args.output and not args.quiet:
                    print(status_line(outcome), file=stdout, flush=True)
            tally.add(outcome)
            if args.progress:
                total = f"/{count}" if count is not None else ""
                print(f"[{index}{total}] {status_line(outcome)}", file=stderr, flush=True)
            elif progress is not None:
                progress.update(tally)
    finally:
        repeats.close()
        if progress is not None:
            progress.close()
        if out_file is not None:
            out_file.close()
        finish = getattr(engines.engine_module(args.engine), "end_of_run", None)
        if finish is not None:  # e.g. the board's connections: closed at the run's end
            finish()
    seconds = time.perf_counter() - start
    if tally.done > 1 and not args.quiet:
        print(tally.summary(seconds), file=stderr if documents_to_stdout else stdout)
    return int(tally.worst)


def _outcomes(items, solve, stream, kwargs, args):
    """The :class:`Outcome` of every input, in order, as they come: through the engine's
    stream (several in flight), or one at a time."""
    if stream is None:
        for label, item in items:
            yield _outcome_of(label, item, lambda puzzle, label=label: solve_one(
                puzzle, solve, kwargs, unique=args.unique, label=label, engine=args.engine),
                kwargs)
        return
    last = time.perf_counter()
    try:
        for (label, item), result in stream((((label, item), item) for label, item in items),
                                            unique=args.unique, **kwargs):
            now = time.perf_counter()
            yield _outcome_of(label, item, lambda puzzle: streamed_outcome(
                puzzle, result, label, args.engine, now - last), kwargs)
            last = now
    except Exception as error:  # noqa: BLE001 -- what the engine raises for the whole run
        code = getattr(error, "exit_code", None)
        if code is None:
            raise
        yield Outcome("", None, None, ExitCode(int(code)), str(error), engine=args.engine)


def _outcome_of(label, item, solved, kwargs):
    if isinstance(item, PuzzleError):
        return Outcome(label, None, None, ExitCode.INPUT, str(item))
    outcome = solved(item)
    outcome.mode = kwargs.get("mode")
    return outcome


def streamed_outcome(puzzle, result, label, engine, wall):
    """The :class:`Outcome` of a streamed answer: a Result, or the exception of its
    puzzle."""
    if isinstance(result, Result):
        code = exit_code_for(result.status, unique=False)
        outcome = Outcome(label, puzzle, result, code, "", wall)
        return outcome
    code = getattr(result, "exit_code", None)
    if code is None:
        raise result
    return Outcome(label, puzzle, None, ExitCode(int(code)), str(result), wall, engine)


class Repeats:
    """The puzzles' errors on standard error, one line each; but an error that is the last
    one's again (every puzzle after a board that cannot be reached:
    :class:`host.device.NotSent`) is counted, and said once with the count when another
    line comes or the run ends."""

    def __init__(self, complain):
        self.complain, self.last, self.names = complain, None, []

    def say(self, name, error):
        if error == self.last:
            self.names.append(name)
            return
        self.close()
        self.complain(f"{name}: {error}")
        self.last = error

    def close(self):
        if self.names:
            more = f"{self.names[0]}" if len(self.names) == 1 else \
                f"{len(self.names)} puzzles, {self.names[0]} to {self.names[-1]}"
            self.complain(f"{more}: the same")
        self.last, self.names = None, []


class Progress:
    """A progress line on standard error, kept up to date (at most ten times a second)
    once a run has taken :data:`PROGRESS_AFTER` seconds, when standard error is a
    terminal: puzzles done (of how many, when known), how they ended, the rate."""

    def __init__(self, stream, total=None, timer=time.monotonic):
        isatty = getattr(stream, "isatty", None)
        self.stream = stream if isatty is not None and isatty() else None
        self.timer = timer
        self.total, self.start, self.shown, self.width = total, timer(), 0.0, 0

    def update(self, tally):
        """``tally``: the run's :class:`Tally` so far."""
        now = self.timer()
        if self.stream is None or now - self.start < PROGRESS_AFTER or now - self.shown < 0.1:
            return
        self.shown = now
        done, solved = tally.done, tally.solved
        total = f"/{self.total}" if self.total is not None else ""
        text = (f"[{done}{total}] {solved} solved, {done - solved} not; "
                f"{done / (now - self.start):.1f} puzzles/s")
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self):
        if self.stream is not None and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _emit(args, outcome, document, used_names, index, count):
    """Write the rendering of one puzzle (the ``index``-th of ``count``, None: unknown)."""
    puzzle, result = outcome.puzzle, outcome.result
    colouring = result.solution if result is not None and result.status.solved else None
    if args.format in ("text", "unicode"):
        if args.quiet and args.output is None:
            return
        text = text_report(outcome, args.format)
        if index > 1:  # a blank line between the blocks of several puzzles
            text = "\n" + text
        document.write(text)
    elif args.format in COUNTER_FORMATS:
        document.write(json_line(outcome, args.engine))
    elif args.format == "svg":
        status = result.status.text if result is not None else "error"
        svg = render_svg(puzzle, colouring, title=f"{outcome.name} ({puzzle.size}): {status}")
        if args.output and count > 1:
            name = _safe_name(outcome.name, used_names)
            Path(args.output, f"{name}.svg").write_text(svg, encoding="utf-8")
        else:
            document.write(svg)
    document.flush()


def json_line(outcome, engine):
    """The JSON record of one puzzle solved or failed by ``engine`` (``--format json`` and
    ``jsonl``), one line: :func:`host.render.render_json` with the input, the exit code and
    the wall time."""
    extra = {"input": outcome.label, "exit_code": int(outcome.code),
             "wall_seconds": outcome.wall}
    if outcome.result is None:
        extra.update({"engine": engine, "status": "error", "status_text": "error",
                      "solution": None, "message": outcome.error})
        if outcome.mode:
            extra["mode"] = outcome.mode
    return render_json(outcome.puzzle, outcome.result, **extra)


def _convert(args, items, stdout, complain):
    """--convert: print each puzzle in another format, do not solve."""
    worst = ExitCode.OK
    try:
        out = open(args.output, "w", encoding="utf-8") if args.output else stdout
    except OSError as error:
        complain(f"cannot write {args.output}: {error.strerror or error}")
        return ExitCode.USAGE
    try:
        for label, item in items:
            if isinstance(item, PuzzleError):
                complain(str(item))
                worst = ExitCode.INPUT
                continue
            text = write_puzzle(item, args.convert)
            if args.convert == "plain":
                header = f"# name: {item.name}\n# size: {item.size}\n" if len(items) > 1 else ""
                out.write(header + text + ("\n" if len(items) > 1 else ""))
            else:
                out.write(text + "\n")
    finally:
        if out is not stdout:
            out.close()
    return int(worst)


def _terminated(signum, frame):
    raise KeyboardInterrupt   # as Ctrl-C: the board's connection is closed on the way out


def run(argv=None):
    """Entry point for scripts: exit with :func:`main`'s code; Ctrl-C and SIGTERM (``timeout``,
    a job's end) exit quietly, after the board's connection is closed (the device's queue
    emptied and its rate set back: the next program finds it at once)."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        code = main(argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        code = ExitCode.INTERRUPTED
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        code = ExitCode.OK
    sys.exit(code)
