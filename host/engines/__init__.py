"""Solver engines behind one interface: ``solve(puzzle, unique=..., time_limit=...)``.

Every engine, the FPGA board included, is listed by name in :data:`ENGINES`
and looked up with :func:`get_engine`; an engine module is imported only when
it is used, so a missing optional solver package gives one clear message
instead of breaking the others.

Two engines have two *modes* (``mode=``, ``--mode``; :data:`MODAL`): ``model``
and ``board`` run either the deduction engine (``"deduce"``) or the paper's
search (``"paper"``).  The default mode is decided here, once
(:data:`DEFAULT_MODE`, deduce; :func:`chosen_mode`): the command line passes a
mode only when ``--mode`` is given.  ``deduce`` is an alias of ``model`` in
deduce mode, kept from before the modes.

Every answer is checked by the independent rules checker (:mod:`host.check`)
exactly once, here: :func:`get_engine` returns the engine's ``solve`` wrapped
by :func:`checked`, which turns a wrong, unreadable or missing solution into
:attr:`Status.ERROR` (the solution is dropped, never passed on).  Engine
modules therefore return their results unchecked.
"""

import functools
import importlib
import inspect
import time

from slitherlink.spec.protocol import Mode

from ..check import check
from ..errors import OptionError
from ..protocol import as_mode
from ..result import Result, Status

__all__ = ["ENGINES", "DEFAULT_ENGINE", "DEFAULT_MODE", "MODAL", "MODES", "ALIASES", "Mode",
           "chosen_mode", "get_engine", "get_stream", "takes_mode", "checked",
           "checked_stream", "EngineUnavailable", "verified", "Result", "Status"]

#: engine name -> (module, one-line description); the module has ``solve(puzzle, ...)``
ENGINES = {
    "board": ("slitherlink.host.engines.board", "the FPGA board (or the virtual board) over "
              "a UART; --mode deduce or paper"),
    "model": ("slitherlink.host.engines.model", "the golden models (Python): --mode deduce the "
              "deduction engine's, --mode paper the paper's search"),
    "sat": ("slitherlink.host.engines.sat", "SAT on edges with sub-loop negation (python-sat)"),
    "z3": ("slitherlink.host.engines.z3", "the paper's SMT formulation, section 4 (z3-solver)"),
    "ip": ("slitherlink.host.engines.ip", "integer program with subtour cuts (HiGHS)"),
    "cpsat": ("slitherlink.host.engines.cpsat", "OR-Tools CP-SAT with AddCircuit"),
    "deduce": ("slitherlink.host.engines.deduce", "alias of --engine model --mode deduce "
               "(the deduction engine's golden model)"),
}

#: the engine of ``host/solve.py`` when none is named
DEFAULT_ENGINE = "board"

#: --mode name -> Mode: what the engines of :data:`MODAL` run
MODES = {"deduce": Mode.DEDUCE, "paper": Mode.PAPER}
#: the mode of ``model`` and ``board`` when none is named (the board's: when its build
#: has the deduction engine; :mod:`host.engines.board`)
DEFAULT_MODE = Mode.DEDUCE
#: the engines that take ``mode`` (their ``solve`` has the keyword)
MODAL = ("model", "board")
#: engine name -> (the engine it stands for, its mode)
ALIASES = {"deduce": ("model", Mode.DEDUCE)}


def chosen_mode(mode):
    """The :class:`Mode` asked (a Mode, or its name), :data:`DEFAULT_MODE` when none was
    (``None``); :class:`host.errors.OptionError` for an unknown one."""
    if mode is None:
        return DEFAULT_MODE
    try:
        return as_mode(mode)
    except ValueError as error:
        raise OptionError(str(error)) from None


class EngineUnavailable(RuntimeError):
    """The engine cannot run here (for example its solver package is missing)."""


def engine_module(name):
    """The module of engine ``name``; raises EngineUnavailable."""
    if name not in ENGINES:
        raise EngineUnavailable(f"unknown engine {name!r}; choose one of: "
                                f"{', '.join(ENGINES)}")
    module_name, _ = ENGINES[name]
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise EngineUnavailable(f"engine {name!r} needs the Python package "
                                f"{error.name!r}: run 'make setup'") from None


def takes_mode(name):
    """Whether engine ``name`` has modes: its ``solve`` takes ``mode``."""
    return "mode" in inspect.signature(engine_module(name).solve).parameters


def get_engine(name, mode=None):
    """The checked ``solve`` function of engine ``name`` (see :func:`checked`); with
    ``mode`` (a :class:`Mode` or its name), bound to that mode (a ValueError for an
    engine without modes)."""
    solve = engine_module(name).solve
    if mode is not None:
        if not takes_mode(name):
            raise ValueError(f"engine {name!r} has no modes (--mode applies to "
                             f"{' and '.join(MODAL)})")
        solve = functools.partial(solve, mode=mode)
    return checked(solve)


def get_stream(name):
    """The checked ``solve_stream`` of engine ``name`` (see :func:`checked_stream`), or None
    for an engine that solves one puzzle at a time."""
    stream = getattr(engine_module(name), "solve_stream", None)
    return None if stream is None else checked_stream(stream)


def checked_stream(solve_stream):
    """``solve_stream`` (``(key, puzzle)`` pairs in, ``(key, outcome)`` pairs out, in order)
    whose every :class:`Result` passes the rules checker (:func:`verified`)."""
    @functools.wraps(solve_stream)
    def stream_checked(items, *args, **kwargs):
        pairs = (((key, puzzle), puzzle) for key, puzzle in items)
        for (key, puzzle), outcome in solve_stream(pairs, *args, **kwargs):
            yield key, verified(puzzle, outcome) if isinstance(outcome, Result) else outcome
    stream_checked.checked = True
    return stream_checked


def checked(solve):
    """``solve`` whose every answer passes the rules checker (the one place it is run)."""
    @functools.wraps(solve)
    def solve_checked(puzzle, *args, **kwargs):
        return verified(puzzle, solve(puzzle, *args, **kwargs))
    solve_checked.checked = True
    return solve_checked


def verified(puzzle, result):
    """Check every solution of ``result`` with the rules checker.

    A solution that fails, cannot be read, or is missing although the status
    says solved turns the result into an ERROR naming the reason: a wrong
    answer is never passed on as a solution.  Called by :func:`checked`; an
    engine module does not call it itself.
    """
    if not isinstance(result, Result):
        return result  # the caller reports the wrong type
    engine = result.engine or "the engine"
    solutions = list(result.solutions or ([result.solution] if result.solution is not None
                                          else []))
    if result.status.solved and not solutions:
        return _error(result, f"{engine} reported '{result.status.text}' "
                              f"but returned no solution")
    for colouring in solutions:
        try:
            verdict = check(puzzle, colouring)
        except Exception as error:  # noqa: BLE001 -- a malformed colouring (type, shape)
            return _error(result, f"{engine} returned an unreadable solution ({error})")
        if not verdict.ok:
            return _error(result, f"{engine} returned a wrong solution: {verdict.message}")
    if solutions and result.solution is None:
        result.solution = solutions[0]
    return result


def _error(result, message):
    result.status = Status.ERROR
    result.message = message
    result.solution, result.solutions = None, []
    return result


class Stopwatch:
    """``with Stopwatch() as clock: ...; clock.seconds``."""

    def __enter__(self):
        self.start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        return False
