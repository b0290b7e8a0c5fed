"""Puzzles and colourings, and the plain grid format of ``shared/puzzles/README.md``.

A :class:`Puzzle` is an R x C grid of clues (0..3, or ``None`` for a blank
cell).  A :class:`Colouring` says for every cell whether it is INSIDE the loop
(``True``) or OUTSIDE (``False``); the region around the grid is outside.  The
loop and the colouring are equivalent (docs/design.md section 1), so solutions are
compared as colourings.
"""

from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import itemgetter

__all__ = ["Puzzle", "Colouring", "PuzzleError", "parse_plain", "format_plain", "plain_rows",
           "parse_colouring", "format_colouring", "colouring_rows", "colouring_cells",
           "transpose_colouring", "BLANK", "MAX_SIDE", "MAX_CELLS", "check_grid_size"]

#: the most rows or columns of a grid read from any format (the corpus's largest is 60x60)
MAX_SIDE = 300
#: the most cells of a grid read from any format
MAX_CELLS = MAX_SIDE * MAX_SIDE


def check_grid_size(rows, cols):
    """Raise ValueError (one line) when a ``rows`` x ``cols`` grid is beyond the limits."""
    if rows > MAX_SIDE or cols > MAX_SIDE or rows * cols > MAX_CELLS:
        raise ValueError(f"a {cols}x{rows} grid (columns x rows) is beyond the limit of "
                         f"{MAX_SIDE}x{MAX_SIDE} cells (see docs/host.md)")

Colouring = tuple  # tuple[tuple[bool, ...], ...], row-major, True = inside


class PuzzleError(ValueError):
    """A puzzle could not be read.  ``str()`` is one line meant for the user."""

    def __init__(self, message, *, source=None, line=None, column=None, position=None):
        self.message, self.source, self.line, self.column = message, source, line, column
        self.position = position  # 1-based character in a one-line id or URL
        where = []
        if source:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        if position is not None:
            where.append(f"character {position}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


#: the values of a clue (None: a blank cell), and their types (True is not a clue)
_CLUES = frozenset((None, 0, 1, 2, 3))
_CLUE_TYPES = frozenset((int, type(None)))
#: the plain format's cell characters and their clues
_PLAIN_CELLS = {**{str(v): v for v in range(4)}, **dict.fromkeys(".-_ ")}
_PLAIN_CHARS = "".join(_PLAIN_CELLS)

#: a blank cell's byte in :attr:`Puzzle.cells` (a clue's byte is the clue)
BLANK = 0xFF
_CELL_BYTE = {None: BLANK, 0: 0, 1: 1, 2: 2, 3: 3}
_CELL_BYTES = bytes(_CELL_BYTE.values())
#: per byte value: the clue of a cell of that byte (None for a blank, and for a byte that
#: is no cell's)
_CLUE_OF_BYTE = tuple(map({byte: clue for clue, byte in _CELL_BYTE.items()}.get, range(256)))
#: a plain cell character's byte in :attr:`Puzzle.cells`
_PLAIN_BYTES = bytes.maketrans(_PLAIN_CHARS.encode("ascii"),
                               bytes(map(_CELL_BYTE.__getitem__, _PLAIN_CELLS.values())))


@dataclass(frozen=True)
class Puzzle:
    """An R x C Slitherlink puzzle: ``clues[r][c]`` is 0..3 or ``None``."""
    clues: tuple
    name: str = ""

    def __post_init__(self):
        clues = tuple(tuple(row) for row in self.clues)
        if not clues or not clues[0]:
            raise PuzzleError("a puzzle has at least one row and one column")
        if len(set(map(len, clues))) == 1 and \
                _CLUE_TYPES.issuperset(map(type, chain.from_iterable(clues))) and \
                _CLUES.issuperset(chain.from_iterable(clues)):
            object.__setattr__(self, "clues", clues)  # the whole grid at once
            return
        for r, row in enumerate(clues):  # else the first bad row or clue, one by one
            if len(row) != len(clues[0]):
                raise PuzzleError(f"row has {len(row)} cells, expected {len(clues[0])}",
                                  line=r + 1)
            for c, clue in enumerate(row):
                if clue is not None and (type(clue) is not int or not 0 <= clue <= 3):
                    raise PuzzleError(f"clue {clue!r} is not 0, 1, 2, 3 or blank",
                                      line=r + 1, column=c + 1)
        object.__setattr__(self, "clues", clues)

    @classmethod
    def _of_cells(cls, cells, cols, name=""):
        """The puzzle of a reader's :attr:`cells` (bytes, ``cols`` a row, every one a clue
        or :data:`BLANK`, else ValueError): its clues are read from a table, not checked
        one by one again."""
        if not cells or len(cells) % cols or cells.translate(None, _CELL_BYTES):
            raise ValueError("the cells of a puzzle are whole rows of clues and blanks")
        clues = itemgetter(*cells)(_CLUE_OF_BYTE) if len(cells) > 1 else \
            (_CLUE_OF_BYTE[cells[0]],)
        puzzle = object.__new__(cls)
        object.__setattr__(puzzle, "clues", tuple(zip(*[iter(clues)] * cols)))
        object.__setattr__(puzzle, "name", name)
        puzzle.__dict__["cells"] = bytes(cells)
        return puzzle

    @cached_property
    def cells(self):
        """The clues one byte a cell, row-major: the clue, :data:`BLANK` for a blank cell
        (computed once: the SOLVE frame, the rules check and the plain text read it)."""
        return bytes(map(_CELL_BYTE.__getitem__, chain.from_iterable(self.clues)))

    @property
    def rows(self):
        return len(self.clues)

    @property
    def cols(self):
        return len(self.clues[0])

    @property
    def size(self):
        return f"{self.rows}x{self.cols}"

    def clue_cells(self):
        """The clue cells ``(r, c)`` in row-major order (the paper's scan order)."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols)
                if self.clues[r][c] is not None]

    def __str__(self):
        return format_plain(self)

    def transposed(self):
        """The C x R puzzle of this one mirrored in its main diagonal (row ``r``,
        column ``c`` -> row ``c``, column ``r``).  The rules of Slitherlink do not
        change under that mirror, so its solutions are this puzzle's, transposed
        (:func:`transpose_colouring`): a build of C x R cells solves an R x C puzzle."""
        return Puzzle(tuple(zip(*self.clues)), name=self.name)


def _plain_row(line, source, number, indent):
    """The clues of a grid line, character by character: the first that is no cell is a
    PuzzleError naming its column."""
    row = []
    for column, char in enumerate(line, start=indent + 1):
        if char in _PLAIN_CELLS:
            row.append(_PLAIN_CELLS[char])
        elif char in "456789":
            raise PuzzleError(f"clue {char} is out of range (clues are 0 to 3)",
                              source=source, line=number, column=column)
        else:
            raise PuzzleError(f"unexpected character {char!r} (expected 0-3 or '.')",
                              source=source, line=number, column=column)
    return row


def _whole_grid(text, name):
    """The puzzle of a plain grid read whole, when it has at most :data:`MAX_SIDE` lines
    of the same number (at most :data:`MAX_SIDE`) of cell characters only; else None."""
    lines = [line for line in map(str.strip, text.splitlines())
             if line and not line.startswith("#")]
    if not lines or len(lines) > MAX_SIDE or len(set(map(len, lines))) != 1:
        return None
    cells, cols = "".join(lines), len(lines[0])
    if cols > MAX_SIDE or cells.strip(_PLAIN_CHARS):
        return None
    return Puzzle._of_cells(cells.encode("ascii").translate(_PLAIN_BYTES), cols, name)


def parse_plain(text, *, source=None, name=""):
    """Read the plain grid format: ``#`` comment lines, then R lines of C of ``0123.``."""
    puzzle = _whole_grid(text, name)
    if puzzle is not None:
        return puzzle
    rows, first = [], None  # line by line, for the first error
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) > MAX_SIDE or len(rows) >= MAX_SIDE:  # before the row is expanded
            raise PuzzleError(f"the grid has more than {MAX_SIDE} "
                              f"{'columns' if len(line) > MAX_SIDE else 'rows'}: grids are at "
                              f"most {MAX_SIDE}x{MAX_SIDE} (see docs/host.md)",
                              source=source, line=number)
        indent = len(raw) - len(raw.lstrip())  # columns count in the line as written
        row = _plain_row(line, source, number, indent)
        if first is None:
            first = len(row)
        elif len(row) != first:
            raise PuzzleError(f"row has {len(row)} cells, the first row has {first}",
                              source=source, line=number,
                              column=indent + min(len(row), first) + 1)
        rows.append(row)
    if not rows:
        raise PuzzleError("no puzzle grid found (the input is empty)", source=source)
    return Puzzle(rows, name=name)


#: a cell's byte (:attr:`Puzzle.cells`) -> its character in the plain format written
_PLAIN_TEXT = bytes.maketrans(bytes([*range(4), BLANK]), b"0123.")


def _rows(text, cols):
    """``text`` (one character a cell, row after row) cut into rows of ``cols``."""
    return [text[i:i + cols] for i in range(0, len(text), cols)]


def _lines(rows):
    """``rows`` as lines of text, each ending in a newline."""
    return "".join([row + "\n" for row in rows])


def plain_rows(puzzle):
    """The rows of the plain grid format, one string a row (``0123.``)."""
    return _rows(puzzle.cells.translate(_PLAIN_TEXT).decode("ascii"), puzzle.cols)


def format_plain(puzzle):
    """The plain grid format, one line per row, ending in a newline."""
    return _lines(plain_rows(puzzle))


def parse_colouring(text, *, source=None):
    """Read a ``.sol`` file: R lines of ``#`` (inside) and ``.`` (outside)."""
    rows = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        bad = next((i for i, ch in enumerate(line) if ch not in "#."), None)
        if bad is not None:
            raise PuzzleError(f"unexpected character {line[bad]!r} in a colouring",
                              source=source, line=number, column=bad + 1)
        rows.append(tuple(ch == "#" for ch in line))
    if not rows:
        raise PuzzleError("empty colouring", source=source)
    if any(len(r) != len(rows[0]) for r in rows):
        raise PuzzleError("ragged colouring", source=source)
    return tuple(rows)


def transpose_colouring(colouring):
    """A colouring (rows of booleans) mirrored in its main diagonal."""
    return tuple(tuple(column) for column in zip(*colouring))


#: byte 0 (outside) -> ".", byte 1 (inside) -> "#"
_COLOURING_TEXT = bytes.maketrans(b"\0\1", b".#")


def colouring_cells(colouring):
    """A colouring's cells (rows of values) one byte each, row after row: 1 inside (a true
    value), 0 outside."""
    count = sum(map(len, colouring))
    try:  # rows of booleans (or of 0 and 1) as they are
        cells = b"".join(map(bytes, colouring))
    except (TypeError, ValueError):
        cells = None
    if cells is None or len(cells) != count or cells.translate(None, b"\0\1"):
        cells = bytes(map(bool, chain.from_iterable(colouring)))
    return cells


def colouring_rows(colouring):
    """The rows of a ``.sol`` file, one string a row: ``#`` inside, ``.`` outside."""
    widths = set(map(len, colouring))
    if len(widths) != 1 or not min(widths):  # ragged, or rows of no cell: row by row
        return ["".join("#" if v else "." for v in row) for row in colouring]
    return _rows(colouring_cells(colouring).translate(_COLOURING_TEXT).decode("ascii"),
                 min(widths))


def format_colouring(colouring):
    """A ``.sol`` file's text: ``#`` inside, ``.`` outside, one line per row."""
    return _lines(colouring_rows(colouring))
