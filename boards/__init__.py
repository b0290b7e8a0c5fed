"""Boards and bitstream builds (paper section 5: the solver on an Artix-7 XC7A35T).

* :mod:`boards.arty` -- Digilent Arty A7-35T, the paper's chip (Vivado or openXC7
  place-and-route, where installed; the build tree and a yosys utilisation report
  everywhere);
* :mod:`boards.ulx3s` -- Radiona ULX3S-85F (Lattice ECP5), fully open flow from PyPI;
* :mod:`boards.build` -- ``python -m slitherlink.boards.build --board arty|ulx3s``;
* :mod:`boards.program` -- ``python -m slitherlink.boards.program --board arty|ulx3s``;
* :mod:`boards.table` -- the resource table of docs/boards.md from build summaries.
"""

from .board import Board, BoardTop, DEFAULT_BAUD, FAST_BAUD
from .arty import ARTY
from .ulx3s import ULX3S

__all__ = ["Board", "BoardTop", "BOARDS", "DEFAULT_BAUD", "FAST_BAUD", "get_board"]

#: Every board, by the short name used on the command line.
BOARDS = {board.name: board for board in (ARTY, ULX3S)}


def get_board(name):
    """The board called ``name``; ValueError with the known names otherwise."""
    try:
        return BOARDS[name]
    except KeyError:
        raise ValueError(f"unknown board {name!r} (known: {', '.join(BOARDS)})") from None
