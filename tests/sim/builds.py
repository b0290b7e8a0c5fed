"""The SoC's virtual-board builds the tests share: each is a Verilator build of its own
(a minute or two of both cores from a clean checkout), so the tests of ``make test`` use
these two and nothing else (docs/design.md section 4, simulation level 3).

* the default build (``build_design("soc")``), exactly what ``make bitstream`` builds for the
  primary board (the Arty's 10x10 SoC, both modes, its design clock and start rate).
  A test that wants another rate switches it with SET_BAUD, as the host does.
* :func:`small` -- a 4x4 paper-only SoC at the default build's clock and start rate, which
  simulates about six times as fast and has no deduction engine.  It is a profiling build
  (the harness's ``--profile``): reading the program counter changes nothing in the design,
  so without ``--profile`` it runs the same cycles as a plain build.
"""

from slitherlink.sim.vboard import build_design, soc

__all__ = ["SMALL", "small", "small_target"]

#: the small build's fields of the target (:func:`sim.vboard.soc.target_of`)
SMALL = {"max_rows": 4, "max_cols": 4, "deduce": 0}


def small():
    """The small profiling build (:class:`sim.vboard.Build`), built when missing."""
    return build_design("soc", params=SMALL, profile=True, quiet=True)


def small_target():
    """The :class:`spec.target.Target` of the small build."""
    return soc.target_of(SMALL)
