"""Boards and bitstream builds (paper section 5: the solver on an Artix-7 XC7A35T).

What is built is a target (:mod:`spec.target`: the board's facts, the engines, the grid,
the clock); this package turns it into a bitstream:

* :mod:`boards.design` -- a target's firmware image, SoC and Verilog;
* :mod:`boards.options` -- the target's command-line options, shared by the CLIs;
* :mod:`boards.top` -- a board's platform and clocking (:class:`BoardSupport`), and the
  top level that puts a core on it;
* :mod:`boards.arty` -- Digilent Arty A7-35T, the paper's chip (Vivado or openXC7
  place-and-route, where installed; the build tree and a yosys utilisation report
  everywhere);
* :mod:`boards.ulx3s` -- Radiona ULX3S-85F (Lattice ECP5), fully open flow from PyPI;
* :mod:`boards.synth` -- the one synthesis path for the XC7A35T (yosys ``synth_xilinx``:
  utilisation and logic depth), and the gateware blocks' report (``make report``);
* :mod:`boards.evidence` -- the builds' ECP5 Fmax, the evidence an Arty clock needs, and
  the table of builds in docs/boards.md;
* :mod:`boards.build` -- ``python -m slitherlink.boards.build --board arty|ulx3s``;
* :mod:`boards.program` -- ``python -m slitherlink.boards.program --board arty|ulx3s``.
"""

import importlib

from .top import BoardSupport, BoardTop

__all__ = ["BoardSupport", "BoardTop", "board_support"]

#: The module that supports each board of :data:`spec.target.BOARDS`.
_MODULES = {"arty": ".arty", "ulx3s": ".ulx3s"}


def board_support(name):
    """The :class:`BoardSupport` of the board called ``name`` (ValueError, one line, naming
    the known boards otherwise)."""
    from slitherlink.spec.target import get_board
    board = get_board(name)
    return importlib.import_module(_MODULES[board.name], __name__).SUPPORT
