"""The framed bitboard layout of a grid (paper Fig. 11), shared by model and gateware.

Cells are kept as bitboards: bit ``r * W + c`` of an integer (or of a gateware
signal) stands for cell ``(r, c)`` of the framed (R+2) x (C+2) array,
``W = C + 2``; row 0, row R+1, column 0 and column C+1 are the frame, which is
always outside.  :mod:`model.paper` and :mod:`model.deduce` compute on it; the
gateware lays out its signals and words with it for the build size.  Besides the
cells, the layout places the other variables of the framed grid at the bit of a cell
(:attr:`Geometry.valid`): the horizontal edge right of a cell, the vertical edge below
it, and the lattice point at its bottom-right (the 2x2 block whose top-left it is).
"""

__all__ = ["Geometry"]


class Geometry:
    """Bitboard geometry of a framed ``rows`` x ``cols`` grid."""

    def __init__(self, rows, cols):
        if rows < 1 or cols < 1:
            raise ValueError(f"a grid is at least 1x1, not {rows}x{cols}")
        self.rows, self.cols = rows, cols
        self.width = w = cols + 2
        self.cells = (rows + 2) * w

        def box(r0, r1, c0, c1):
            return sum(((1 << (c1 - c0 + 1)) - 1) << (r * w + c0) for r in range(r0, r1 + 1))
        self.all = (1 << self.cells) - 1
        self.grid = box(1, rows, 1, cols)
        self.frame = self.all & ~self.grid
        #: top-left corners of the 2x2 blocks, the lattice points: rows 0..R, columns 0..C
        self.blocks = self.points = box(0, rows, 0, cols)
        #: per kind of variable (C cells, H and V edges, A and B the lattice points' two
        #: diagonals), the bits where one exists
        self.valid = {"C": self.all, "H": box(0, rows + 1, 0, cols),
                      "V": box(0, rows, 0, cols + 1), "A": self.points, "B": self.points}
        #: the grid cells' bits in row-major order
        self.grid_bits = [(r + 1) * w + c + 1 for r in range(rows) for c in range(cols)]

    def bit(self, r, c):
        """Bit of grid cell ``(r, c)``, 0-based within the grid (frame excluded)."""
        return 1 << ((r + 1) * self.width + c + 1)

    def neighbours(self, p):
        w = self.width
        return ((p << 1) | (p >> 1) | (p << w) | (p >> w)) & self.all

    def grid_cells(self, board):
        """The grid cells ``(r, c)`` set in ``board``, in row-major (scan) order."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols)
                if board & self.bit(r, c)]

    def to_rows(self, board):
        """The grid part of ``board`` as rows of booleans."""
        return tuple(tuple(bool(board & self.bit(r, c)) for c in range(self.cols))
                     for r in range(self.rows))

    def from_rows(self, rows):
        board = 0
        for r, row in enumerate(rows):
            for c, v in enumerate(row):
                if v:
                    board |= self.bit(r, c)
        return board
