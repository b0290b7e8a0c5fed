"""Puzzle formats: the plain grid, Simon Tatham's Loopy game ids, puzz.link URLs.

Three ways of writing a square-grid Slitherlink puzzle are read and written:

``plain``
    The grid format of ``shared/puzzles/README.md`` (:func:`host.puzzle.parse_plain`):
    ``#`` comment lines, then R lines of C characters ``0``-``3`` or ``.``.

``loopy``
    A game id of Simon Tatham's Loopy, square grids only: ``WxHt0:<body>``
    (``W`` columns, ``H`` rows; ``t0`` is the square grid and may be left out, a
    difficulty such as ``dh`` may follow).  The body lists the faces row by row:
    a digit is a clue, a letter ``a``..``z`` a run of 1..26 blank faces.
    ``sgt-loopy --generate 1 10x10t0dh`` prints such ids.

``puzzlink``
    A pzprjs URL, ``https://puzz.link/p?slither/<cols>/<rows>/<body>`` (also
    ``p.html?``, ``pzv.jp``, ``slitherlink`` as the type, http or https, an
    optional trailing ``/``).  The body lists the cells row by row: ``0``-``4``
    a clue, ``5``-``9`` the clue c-5 then one blank, ``a``-``e`` the clue c-10
    then two blanks, ``g``-``z`` a run of 1..20 blanks, ``.`` an unknown clue
    (``?``, not supported here).  A last run may overrun the grid: decoding
    stops at rows x cols, as pzprjs does.

:func:`parse_puzzle` detects the format of a text; :func:`load_puzzles` and
:func:`iter_puzzles` take what a user types on a command line (a file, a
directory, a literal id or URL, or ``-`` for standard input).  Every malformed
input raises :class:`host.puzzle.PuzzleError` whose ``str()`` is one line
naming the place (line and column in a file, character in an id or URL).

Standard input is a *stream*, read line by line as it comes (:func:`iter_puzzles` yields
each puzzle as soon as its line is complete): one Loopy id, puzz.link URL or file name (or
directory) per line, blank lines and ``#`` comments skipped; a standard input whose first
line is a row of a plain grid is read whole as one plain puzzle, as a file is.

Limits (far above any real puzzle -- the corpus's largest is 60x60 -- and far
below what exhausts memory), checked before anything is expanded:

* an input (a file, a line of standard input, standard input read whole, a literal id or
  URL) has at most :data:`MAX_INPUT_BYTES` bytes; a regular file's size is checked before
  it is read, anything else (standard input, a FIFO, a device) is read in chunks and
  refused at the first byte past the limit;
* a FIFO or a device must deliver its content, up to its end, within :data:`INPUT_WAIT`
  seconds of being opened, and standard input (unless it is a terminal, where a person
  types) a puzzle within :data:`INPUT_WAIT` seconds of the first byte after the one
  before: a source that trickles bytes forever, or sends nothing, ends in one line;
* a grid has at most :data:`MAX_SIDE` rows and columns and :data:`MAX_CELLS`
  cells, in every format: the size written in a Loopy id or a puzz.link URL is
  checked (with at most :data:`MAX_SIZE_DIGITS` digits, ASCII only) before the
  clues are expanded, a plain grid row by row as it is read.
"""

import os
import re
import select
import stat
import sys
import time
from pathlib import Path

from .puzzle import (MAX_CELLS, MAX_SIDE, Puzzle, PuzzleError, check_grid_size, format_plain,
                     parse_plain)

#: the largest input read, in bytes (a 300x300 plain grid is about 90 kB)
MAX_INPUT_BYTES = 4 * 1024 * 1024
#: seconds within which a FIFO or device must deliver its content, and standard input (not
#: a terminal) each puzzle once its first byte has come
INPUT_WAIT = 10.0
#: the most digits a grid side may be written with in a Loopy id or URL
MAX_SIZE_DIGITS = 6

__all__ = [
    "MAX_INPUT_BYTES", "MAX_SIDE", "MAX_CELLS", "INPUT_WAIT", "MAX_SIZE_DIGITS",
    "FORMATS", "detect_format",
    "parse_loopy", "format_loopy", "parse_puzzlink", "format_puzzlink",
    "parse_puzzle", "parse_puzzles", "write_puzzle",
    "looks_like_literal", "load_puzzles", "load_puzzle", "iter_puzzles", "read_puzzles",
]

#: format name -> one-line description
FORMATS = {
    "plain": "grid of 0-3 and '.' (shared/puzzles/README.md)",
    "loopy": "Simon Tatham's Loopy game id, e.g. 7x7t0:a2b3a0...",
    "puzzlink": "puzz.link / pzv.jp URL, e.g. https://puzz.link/p?slither/4/4/...",
}

_LOOPY_START = re.compile(r"\d+\s*x\s*\d+|\d+(t\d+)?(d[a-z])?\s*[:#]", re.IGNORECASE)
_URL_START = re.compile(r"(https?://|www\.|[a-z0-9-]+(\.[a-z0-9-]+)+/|p(\.html)?\?|slither)",
                        re.IGNORECASE)
_SLITHER_TYPES = ("slither", "slitherlink")
_DIGITS = re.compile(r"[0-9]+")
_PZPR_HOST = "https://puzz.link/p?"


def _content_lines(text):
    """(line number, line) of the lines that are neither blank nor ``#`` comments."""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield number, raw


def _kind(line):
    """The format a single stripped line is written in."""
    if _URL_START.match(line) or "?" in line:
        return "puzzlink"
    if _LOOPY_START.match(line):
        return "loopy"
    return "plain"


def detect_format(text):
    """``"plain"``, ``"loopy"`` or ``"puzzlink"``: the format of ``text``, judged by
    its first line that is not blank or a ``#`` comment (``"plain"`` if none)."""
    for _, raw in _content_lines(text):
        return _kind(raw.strip())
    return "plain"


# --- Loopy game ids -----------------------------------------------------------------

def _stripped(text, source, line, column):
    """``(s, fail)``: ``text`` without its surrounding blanks, and ``fail(message, index)``,
    which raises a :class:`PuzzleError` placed at character ``index`` (0-based) of ``s``.

    In a file (``line`` given) the place is a line and a column; in a literal (a
    command-line argument) it is the 1-based character of the string.
    """
    lead = len(text) - len(text.lstrip())

    def fail(message, index):
        if line is not None:
            raise PuzzleError(message, source=source, line=line,
                              column=column + lead + index + 1)
        raise PuzzleError(message, source=source, position=index + 1)
    return text.strip(), fail


def parse_loopy(text, *, source=None, name="", line=None, column=0):
    """Read a Loopy game id such as ``7x7t0:a2b3a0...`` (square grids only).

    ``line`` and ``column`` (0-based offset of the id in its line) place errors
    inside a file; without ``line`` errors name the character of the id.
    """
    s, fail = _stripped(text, source, line, column)

    if not s:
        raise PuzzleError("empty Loopy game id", source=source, line=line)
    colon = s.find(":")
    if colon < 0:
        hash_ = s.find("#")
        if hash_ >= 0:
            fail(f"'{s}' is a Loopy random seed, not a game id: run "
                 f"sgt-loopy --generate 1 '{s}' to get the game id", hash_)
        fail("missing ':' between the parameters (like 10x10t0) and the clues", len(s))
    params, body = s[:colon], s[colon + 1:]
    # parameters: W[xH][tN][dC]  (Loopy's decode_params; H defaults to W, type to 0)
    m = re.match(r"([0-9]+)(?:x([0-9]+))?(?:t([0-9]+))?(?:d([a-z]))?", params)
    if not m or not m.group(1):
        fail("a Loopy game id starts with the size, like 10x10t0:", 0)
    if m.end() != len(params):
        fail(f"unexpected {params[m.end()]!r} in the parameters "
             f"(expected WxH, then t0, then d and a difficulty letter)", m.end())
    for group in (1, 2, 3):
        if m.group(group) is not None and len(m.group(group)) > MAX_SIZE_DIGITS:
            fail(f"the number {_short(m.group(group), 20)} has {len(m.group(group))} digits: "
                 f"grids are at most {MAX_SIDE}x{MAX_SIDE}", m.start(group))
    width = int(m.group(1))
    height = int(m.group(2)) if m.group(2) is not None else width
    grid_type = int(m.group(3)) if m.group(3) is not None else 0
    if grid_type != 0:
        fail(f"grid type t{grid_type} is not the square grid: only t0 is supported",
             m.start(3) - 1)
    if width < 1 or height < 1:
        fail(f"the grid size {width}x{height} has no cells", 0)
    try:
        check_grid_size(height, width)
    except ValueError as error:
        fail(str(error), 0)
    cells = width * height
    clues = []
    for i, char in enumerate(body):
        index = colon + 1 + i
        if "0" <= char <= "3":
            clues.append(int(char))
        elif "4" <= char <= "9":
            fail(f"clue {char} is out of range (a square cell has clues 0 to 3)", index)
        elif "A" <= char <= "Z":
            fail(f"clue {char} (= {ord(char) - ord('A') + 10}) is out of range "
                 f"(a square cell has clues 0 to 3)", index)
        elif "a" <= char <= "z":
            clues.extend([None] * (ord(char) - ord("a") + 1))
        else:
            fail(f"unexpected character {char!r} in the clues "
                 f"(expected a digit 0-3 or a letter a-z)", index)
        if len(clues) > cells:
            fail(f"the clues describe more than the {cells} faces of a "
                 f"{width}x{height} grid (size mismatch?)", index)
    if len(clues) < cells:
        fail(f"the clues describe {len(clues)} faces, a {width}x{height} grid has "
             f"{cells} (size mismatch or truncated id)", len(s))
    return Puzzle([clues[r * width:(r + 1) * width] for r in range(height)], name=name)


def format_loopy(puzzle):
    """The Loopy game id of ``puzzle``: ``WxHt0:<body>`` (W = columns)."""
    out, run = [], 0
    for row in puzzle.clues:
        for clue in row:
            if clue is None:
                if run == 26:
                    out.append("z")
                    run = 0
                run += 1
            else:
                if run:
                    out.append(chr(ord("a") + run - 1))
                    run = 0
                out.append(str(clue))
    if run:
        out.append(chr(ord("a") + run - 1))
    return f"{puzzle.cols}x{puzzle.rows}t0:{''.join(out)}"


# --- puzz.link / pzv.jp URLs ----------------------------------------------------------

def parse_puzzlink(text, *, source=None, name="", line=None, column=0):
    """Read a puzz.link / pzv.jp Slitherlink URL (``p?slither/<cols>/<rows>/<body>``)."""
    s, fail = _stripped(text, source, line, column)

    if not s:
        raise PuzzleError("empty puzz.link URL", source=source, line=line)
    query_at = s.find("?")
    if query_at >= 0:
        prefix = s[:query_at]
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", prefix)
        if scheme and scheme.group(1).lower() not in ("http", "https"):
            fail(f"a puzz.link URL starts with http:// or https://, not {scheme.group(0)}", 0)
        if any(ch.isspace() for ch in prefix):
            fail("unexpected space in the URL", next(i for i, ch in enumerate(prefix)
                                                      if ch.isspace()))
        start = query_at + 1
    elif re.match(r"https?://", s, re.IGNORECASE):
        fail("no '?' in the URL: expected https://puzz.link/p?slither/<cols>/<rows>/<body>",
             len(s))
    else:
        start = 0  # a bare "slither/<cols>/<rows>/<body>"
    query = s[start:]
    parts = query.split("/")
    offsets, at = [], start
    for part in parts:
        offsets.append(at)
        at += len(part) + 1
    kind = parts[0]
    if kind.lower() not in _SLITHER_TYPES:
        if not kind:
            fail("missing puzzle type after '?': expected slither/<cols>/<rows>/<body>",
                 offsets[0])
        fail(f"the puzzle type is {kind!r}, not slither (only Slitherlink URLs are read)",
             offsets[0])
    k = 1
    # pzprjs allows an optional flag field before the size ("[pflag/]cols/rows/body");
    # Slitherlink defines no flags, so a non-numeric field there is skipped.
    if k < len(parts) and parts[k] and not parts[k].isdigit():
        k += 1
    numbers = []
    for what in ("columns", "rows"):
        if k >= len(parts) or not parts[k]:
            fail(f"missing the number of {what} (expected slither/<cols>/<rows>/<body>)",
                 offsets[k] if k < len(parts) else len(s))
        if not _DIGITS.fullmatch(parts[k]):
            fail(f"the number of {what} {_short(parts[k], 20)!r} is not a whole number "
                 f"(digits 0-9)", offsets[k])
        if len(parts[k]) > MAX_SIZE_DIGITS:
            fail(f"the number of {what} has {len(parts[k])} digits: grids are at most "
                 f"{MAX_SIDE}x{MAX_SIDE}", offsets[k])
        numbers.append(int(parts[k]))
        k += 1
    cols, rows = numbers
    if cols < 1 or rows < 1:
        fail(f"the grid size {cols} columns x {rows} rows has no cells", offsets[k - 2])
    try:
        check_grid_size(rows, cols)
    except ValueError as error:
        fail(str(error), offsets[k - 2])
    if k >= len(parts):
        fail("missing the clues after the size", len(s))
    body_at = offsets[k]
    body = "/".join(parts[k:])
    if body.endswith("/"):
        body = body[:-1]
    if not body:
        fail("missing the clues after the size", len(s))
    cells = rows * cols
    clues = []
    for i, char in enumerate(body):
        index = body_at + i
        if len(clues) >= cells:
            fail(f"extra characters after the last cell of the {cols}x{rows} grid "
                 f"(size mismatch?)", index)
        if "0" <= char <= "9" or "a" <= char <= "e":
            value = int(char, 16)
            clue, blanks = value % 5, value // 5
            if clue > 3:
                fail(f"clue 4 (character {char!r}) is out of range "
                     f"(a square cell has clues 0 to 3)", index)
            clues.append(clue)
            clues.extend([None] * blanks)
        elif "g" <= char <= "z":
            clues.extend([None] * (int(char, 36) - 15))
        elif char == ".":
            fail("an unknown clue ('?', character '.') is not supported: "
                 "every clue must be 0 to 3 or blank", index)
        else:
            fail(f"unexpected character {char!r} in the clues "
                 f"(expected 0-9, a-e or g-z)", index)
    if len(clues) < cells:
        fail(f"the clues describe {len(clues)} cells, a {cols}x{rows} grid has {cells} "
             f"(size mismatch or truncated URL)", len(s))
    del clues[cells:]  # a last run may overrun the grid
    return Puzzle([clues[r * cols:(r + 1) * cols] for r in range(rows)], name=name)


def format_puzzlink(puzzle, *, prefix=_PZPR_HOST):
    """The puzz.link URL of ``puzzle``, encoded exactly as pzprjs encodes it.

    Like pzprjs, a clue is packed with the blanks after it (``5``-``9``: one,
    ``a``-``e``: two), and a clue that is not followed by a clue is packed as if
    two blanks followed, even past the last cell (the overrun decoders stop at).
    """
    flat = [clue for row in puzzle.clues for clue in row]
    out, run, c = [], 0, 0
    while c < len(flat):
        clue = flat[c]
        if clue is None:
            run += 1
            if run == 20:
                out.append(_base36(15 + run))
                run = 0
            c += 1
            continue
        if run:
            out.append(_base36(15 + run))
            run = 0
        if c + 1 < len(flat) and flat[c + 1] is not None:
            blanks = 0
        elif c + 2 < len(flat) and flat[c + 2] is not None:
            blanks = 1
        else:
            blanks = 2
        out.append(format(clue + 5 * blanks, "x"))
        c += 1 + blanks
    if run:
        out.append(_base36(15 + run))
    return f"{prefix}slither/{puzzle.cols}/{puzzle.rows}/{''.join(out)}"


def _base36(value):
    return "0123456789abcdefghijklmnopqrstuvwxyz"[value]


# --- any format -----------------------------------------------------------------------

def parse_puzzles(text, *, source=None, name=""):
    """All puzzles of ``text``, whatever its format.

    A plain grid is one puzzle.  A text whose content lines are Loopy ids or
    puzz.link URLs holds one puzzle per line (named ``name#1``, ``name#2`` ...
    when there are several).
    """
    content = _content_lines(text)
    first = next(content, None)
    if first is None:
        raise PuzzleError("no puzzle found (the input is empty)", source=source)
    if _kind(first[1].strip()) == "plain":
        return [parse_plain(text, source=source, name=name)]
    lines = [first, *content]
    # a one-line text (a literal id or URL) names characters, a longer one lines and columns
    one_line = "\n" not in text.strip()
    puzzles = []
    for number, raw in lines:
        kind = _kind(raw.strip())
        label = f"{name}#{len(puzzles) + 1}" if len(lines) > 1 else name
        line = None if one_line else number
        if kind == "loopy":
            puzzles.append(parse_loopy(raw, source=source, name=label, line=line))
        elif kind == "puzzlink":
            puzzles.append(parse_puzzlink(raw, source=source, name=label, line=line))
        else:
            raise PuzzleError("a file of Loopy ids or puzz.link URLs cannot also hold a "
                              "plain grid (one id or URL per line)",
                              source=source, line=number)
    return puzzles


def parse_puzzle(text, *, source=None, name=""):
    """The one puzzle of ``text`` (plain grid, Loopy id or puzz.link URL)."""
    puzzles = parse_puzzles(text, source=source, name=name)
    if len(puzzles) != 1:
        raise PuzzleError(f"expected one puzzle, found {len(puzzles)}", source=source)
    return puzzles[0]


def write_puzzle(puzzle, fmt="plain"):
    """``puzzle`` in format ``fmt`` (one of :data:`FORMATS`), as one string."""
    if fmt == "plain":
        return format_plain(puzzle)
    if fmt == "loopy":
        return format_loopy(puzzle)
    if fmt == "puzzlink":
        return format_puzzlink(puzzle)
    raise ValueError(f"unknown puzzle format {fmt!r}; choose one of: {', '.join(FORMATS)}")


# --- what a user types on a command line ----------------------------------------------

def looks_like_literal(spec):
    """Whether a command-line argument is a Loopy id or a puzz.link URL (not a path)."""
    return _kind(spec.strip()) in ("loopy", "puzzlink")


def _short(spec, limit=40):
    spec = spec.strip()
    return spec if len(spec) <= limit else spec[:limit - 3] + "..."


def _too_big(source, size=None):
    got = f"{size:,} bytes" if size is not None else f"more than {MAX_INPUT_BYTES:,} bytes"
    return PuzzleError(f"the input is too large ({got}; the limit is {MAX_INPUT_BYTES:,} "
                       f"bytes, see docs/host.md)", source=source)


def _decode(data, source):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PuzzleError(f"not a text file (byte {error.start + 1} is not UTF-8)",
                          source=source) from None


def _read_file(path):
    """The text of ``path``, read within the limits: a regular file's size is checked
    first; a FIFO or a device is read without blocking, in chunks, for at most
    :data:`INPUT_WAIT` seconds and :data:`MAX_INPUT_BYTES` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as error:
        raise PuzzleError(f"cannot read the file: {error.strerror or error}",
                          source=path) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise PuzzleError("is a directory", source=path)
        if stat.S_ISREG(info.st_mode):
            if info.st_size > MAX_INPUT_BYTES:
                raise _too_big(path, info.st_size)
            os.set_blocking(fd, True)
            data = _read_bounded(fd, path, wait=None)
        else:  # a FIFO, a character device, a socket: never block, never read unbounded
            data = _read_bounded(fd, path, wait=INPUT_WAIT)
    except OSError as error:
        raise PuzzleError(f"cannot read the file: {error.strerror or error}",
                          source=path) from None
    finally:
        os.close(fd)
    return _decode(data, path)


def _read_bounded(fd, source, *, wait):
    """At most MAX_INPUT_BYTES bytes of ``fd`` up to its end; with ``wait`` (seconds), a
    non-blocking ``fd`` that has not come to its end within that time is refused."""
    chunks, total = [], 0
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(0.0, left))[0] if left > 0 else []
            if not ready:
                what = "not at its end" if total else "nothing to read"
                raise PuzzleError(f"{what} after {wait:g} s (a FIFO with no writer, or one "
                                  f"that trickles, or a device?)", source=source)
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            time.sleep(0.01)
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_INPUT_BYTES:
            raise _too_big(source)


_STDIN = "<stdin>"


class _StdinLines:
    """Standard input's lines as they come: ``(number, text)``, each line at most
    MAX_INPUT_BYTES bytes; unless it is a terminal, each puzzle within INPUT_WAIT seconds of
    the first byte after the one before (:meth:`puzzle_done` says when one was found)."""

    def __init__(self, stdin):
        stream = stdin if stdin is not None else sys.stdin
        if stream is None or getattr(stream, "closed", False):
            raise PuzzleError("standard input is closed", source=_STDIN)
        self.stream = stream
        self.fd = None
        if stdin is None:  # the process's own: read its descriptor without blocking
            try:
                self.fd = stream.fileno()
                self.tty = os.isatty(self.fd)
            except (OSError, ValueError, AttributeError) as error:
                raise PuzzleError(f"cannot read standard input: "
                                  f"{getattr(error, 'strerror', None) or error}",
                                  source=_STDIN) from None
        else:
            self.tty = False
        self._buffer = b""
        self._first_byte = None  # of what follows the last puzzle
        self.number = 0
        self.bytes = 0           # read in all

    def puzzle_done(self):
        self._first_byte = None

    def _clock(self, got):
        if got and self._first_byte is None:
            self._first_byte = time.monotonic()

    def _left(self):
        if self.tty or self._first_byte is None:
            return None
        return self._first_byte + INPUT_WAIT - time.monotonic()

    def _chunk(self):
        """Bytes of the descriptor, b"" at its end; PuzzleError after INPUT_WAIT."""
        while True:
            left = self._left()
            if left is not None and left <= 0:
                raise PuzzleError(f"no complete puzzle line within {INPUT_WAIT:g} s of the "
                                  f"bytes that began it (a stream that trickles?)",
                                  source=_STDIN, line=self.number + 1)
            ready = select.select([self.fd], [], [], left if left is not None else None)[0]
            if not ready:
                continue
            try:
                return os.read(self.fd, 65536)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError as error:
                raise PuzzleError(f"cannot read standard input: {error.strerror or error}",
                                  source=_STDIN) from None

    def __iter__(self):
        if self.fd is None:  # a text or binary stream of the caller's (tests, embedding)
            try:
                for line in iter(self.stream.readline, type(self.stream.read(0))()):
                    self.number += 1
                    self.bytes += len(line)
                    if len(line) > MAX_INPUT_BYTES:
                        raise _too_big(_STDIN)
                    yield self.number, (_decode(line, _STDIN) if isinstance(line, bytes)
                                        else line)
            except (OSError, ValueError) as error:
                raise PuzzleError(f"cannot read standard input: "
                                  f"{getattr(error, 'strerror', None) or error}",
                                  source=_STDIN) from None
            return
        while True:
            while b"\n" not in self._buffer:
                if len(self._buffer) > MAX_INPUT_BYTES:
                    raise _too_big(_STDIN)
                chunk = self._chunk()
                self._clock(chunk)
                if not chunk:
                    if self._buffer:
                        self.number += 1
                        line, self._buffer = self._buffer, b""
                        self.bytes += len(line)
                        yield self.number, _decode(line, _STDIN)
                    return
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\n", 1)
            self.number += 1
            self.bytes += len(raw) + 1
            if len(raw) > MAX_INPUT_BYTES:
                raise _too_big(_STDIN)
            yield self.number, _decode(raw + b"\n", _STDIN)


#: the characters of a row of a plain grid (digits, blanks, an ASCII drawing's lines)
_PLAIN_ROW = frozenset("0123.+-| \t")


def _plain_row(text):
    """Whether ``text`` (a line of standard input) is a row of a plain grid."""
    return _kind(text) == "plain" and set(text) <= _PLAIN_ROW


def _stdin_puzzles(stdin):
    """``(label, puzzle or PuzzleError)`` of standard input as it comes (see the module
    docstring): a line-by-line stream of ids, URLs and file names, or one plain puzzle read
    whole.  A line that cannot be read is an error of its own, the stream goes on; an error
    of the stream itself (closed, too slow, too large) ends it."""
    try:
        lines = _StdinLines(stdin)
        found = 0
        reading = iter(lines)
        for number, raw in reading:
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            if not found and _plain_row(text) and not os.path.exists(text):
                # a grid: read it whole
                rest = [raw]
                for _, line in reading:
                    rest.append(line)
                    if lines.bytes > MAX_INPUT_BYTES:
                        raise _too_big(_STDIN)
                for puzzle in parse_puzzles("".join(rest), source=_STDIN, name="stdin"):
                    yield _STDIN, puzzle
                return
            found += 1
            if looks_like_literal(text):
                kind = _kind(text)
                parse = parse_loopy if kind == "loopy" else parse_puzzlink
                try:
                    yield _STDIN, parse(raw, source=_STDIN, name=f"stdin#{found}", line=number)
                except PuzzleError as error:
                    yield _STDIN, error
            elif os.path.exists(text):
                yield from _read_expanded(text, None)
            else:
                yield _STDIN, PuzzleError("no such file or directory, and not a Loopy game "
                                          "id or puzz.link URL", source=_STDIN, line=number)
            lines.puzzle_done()
        if not found:
            raise PuzzleError("no puzzle found (the input is empty)", source=_STDIN)
    except PuzzleError as error:
        yield _STDIN, error


def _expand(spec, stdin):
    """(label, callable returning the list of puzzles) for one command-line argument."""
    if len(spec) > MAX_INPUT_BYTES:
        def huge():
            raise _too_big(f"argument '{_short(spec)}'", len(spec.encode("utf-8", "replace")))
        return [(_short(spec), huge)]
    if os.path.isdir(spec):
        try:  # the files named *.txt (not ".txt" alone), in the order of their names
            with os.scandir(spec) as entries:
                names = sorted(entry.name for entry in entries
                               if entry.name.endswith(".txt") and len(entry.name) > 4
                               and entry.is_file())
            folder = str(Path(spec))   # as Path writes it ("./d/" is "d")
            files = [(os.path.join(folder, name), name[:-len(".txt")]) for name in names]
        except OSError as error:
            def unreadable(error=error):
                raise PuzzleError(f"cannot read the directory: {error.strerror or error}",
                                  source=spec)
            return [(spec, unreadable)]
        if not files:
            def empty():
                raise PuzzleError("no *.txt puzzle files in this directory", source=spec)
            return [(spec, empty)]
        return [(path, lambda path=path, stem=stem: parse_puzzles(_read_file(path), source=path,
                                                                  name=stem))
                for path, stem in files]
    if os.path.exists(spec):
        if spec.endswith(".sol"):
            def solution():
                raise PuzzleError("this is a solution file (.sol), not a puzzle", source=spec)
            return [(spec, solution)]
        return [(spec, lambda: parse_puzzles(_read_file(spec), source=spec,
                                             name=Path(spec).stem))]
    if looks_like_literal(spec):
        kind = _kind(spec.strip())
        label = _short(spec)
        what = "Loopy game id" if kind == "loopy" else "puzz.link URL"
        parse = parse_loopy if kind == "loopy" else parse_puzzlink
        return [(label, lambda: [parse(spec, source=f"{what} '{label}'", name=label)])]

    def missing():
        raise PuzzleError("no such file or directory, and not a Loopy game id or "
                          "puzz.link URL", source=spec)
    return [(spec, missing)]


def iter_puzzles(specs, *, stdin=None):
    """For each command-line argument (file, directory, Loopy id, URL or ``-``),
    yield ``(label, puzzle)`` for every puzzle it holds, or ``(label, error)``
    with a :class:`PuzzleError` for an input that cannot be read; standard input's as they
    come."""
    for spec in specs:
        if spec == "-":
            yield from _stdin_puzzles(stdin)
            continue
        yield from _read_expanded(spec, stdin)


def _read_expanded(spec, stdin):
    """``(label, puzzle or PuzzleError)`` of every input one argument names."""
    for label, read in _expand(spec, stdin):
        try:
            puzzles = read()
        except PuzzleError as error:
            yield label, error
            continue
        for puzzle in puzzles:
            yield label, puzzle


def read_puzzles(specs, *, stdin=None):
    """Every puzzle of ``specs``; the first unreadable input raises its PuzzleError."""
    out = []
    for _, item in iter_puzzles(specs, stdin=stdin):
        if isinstance(item, PuzzleError):
            raise item
        out.append(item)
    return out


def load_puzzles(spec, *, stdin=None):
    """The puzzles of one command-line argument (see :func:`iter_puzzles`)."""
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    return read_puzzles([spec], stdin=stdin)


def load_puzzle(spec, *, stdin=None):
    """The one puzzle of a file path, a Loopy id, a puzz.link URL or ``-``."""
    puzzles = load_puzzles(spec, stdin=stdin)
    if len(puzzles) != 1:
        raise PuzzleError(f"expected one puzzle, found {len(puzzles)}", source=str(spec))
    return puzzles[0]
