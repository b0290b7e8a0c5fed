"""The blocks of the docs that a program writes (the table of builds, the README's
paragraphs): the text between two marks, and the README's wrapping."""

import textwrap

__all__ = ["README_WIDTH", "between", "wrapped"]

#: the line width of the README's generated paragraphs
README_WIDTH = 90


def between(text, begin, end, body, missing):
    """``text`` with ``body`` between its marks ``begin`` and ``end`` (the marks kept);
    ValueError(``missing``) when they are not there."""
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(missing)
    return text[:start + len(begin)] + "\n" + body + text[stop:]


def wrapped(paragraph, width=README_WIDTH):
    """A paragraph, or a list item (``- ...``, its lines after the first indented), as
    lines of at most ``width`` characters (a longer word stays whole)."""
    indent = "  " if paragraph.startswith("- ") else ""
    return textwrap.fill(paragraph, width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)
