"""Solver engines behind one interface: ``solve(puzzle, unique=..., time_limit=...)``.

Every engine returns a :class:`host.result.Result` whose solutions have passed
the independent rules checker (:mod:`host.check`); an engine whose answer fails
the checker reports :attr:`Status.ERROR` instead of a wrong solution.

Engines are looked up by name with :func:`get_engine`; an engine module is
imported only when it is used, so a missing optional solver package gives one
clear message instead of breaking the others.
"""

import importlib
import time

from ..check import check
from ..result import Result, Status

__all__ = ["ENGINES", "get_engine", "EngineUnavailable", "verified", "Result", "Status"]

#: engine name -> (module, one-line description)
ENGINES = {
    "model": ("host.engines.model", "the golden model of the paper's search (Python)"),
    "sat": ("host.engines.sat", "SAT on edges with sub-loop negation (python-sat)"),
    "z3": ("host.engines.z3", "the paper's SMT formulation, section 4 (z3-solver)"),
    "ip": ("host.engines.ip", "integer program with subtour cuts (HiGHS)"),
    "cpsat": ("host.engines.cpsat", "OR-Tools CP-SAT with AddCircuit"),
    "deduce": ("host.engines.deduce", "the golden model of the deduction engine (Python)"),
}


class EngineUnavailable(RuntimeError):
    """The engine cannot run here (for example its solver package is missing)."""


def get_engine(name):
    """The ``solve`` function of engine ``name``."""
    if name not in ENGINES:
        raise EngineUnavailable(f"unknown engine {name!r}; choose one of: "
                                f"{', '.join(ENGINES)}")
    module_name, _ = ENGINES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise EngineUnavailable(f"engine {name!r} needs the Python package "
                                f"{error.name!r}: run 'make setup'") from None
    return module.solve


def verified(puzzle, result):
    """Check every solution of ``result`` with the rules checker.

    A solution that fails turns the result into an ERROR naming the broken rule:
    a wrong answer is never passed on as a solution.
    """
    for colouring in result.solutions or ([result.solution] if result.solution else []):
        verdict = check(puzzle, colouring)
        if not verdict.ok:
            result.status = Status.ERROR
            result.message = f"{result.engine} returned a wrong solution: {verdict.message}"
            result.solution, result.solutions = None, []
            break
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
