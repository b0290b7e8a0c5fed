"""The firmware's units call each other along a tree: main.c (the solves) uses the requests
(serve.c), the search (search.c), the deduce driver (deduce.c), the frames (proto.c) and the
rules (rules.c); the searches use the requests' service hook; the requests use the line's
rate (baud.c), the frames and the rules (a deduce-mode SOLVE's island rule, found as it
arrives); nothing calls back.  A function is declared in the header of
the unit that defines it."""

import re

from slitherlink.firmware import build as fw

SRC = fw.FIRMWARE_DIR / "src"


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def includes(path):
    """The local headers ``path`` includes."""
    return re.findall(r'^#include "(\w+)\.h"', path.read_text(), re.M)


def unit_graph():
    """``{unit: units it uses}``: unit x uses unit y when x.c or x.h includes y.h, y.c being a
    unit of its own (a header without a .c, io.h or arith.h, is a leaf of every unit)."""
    units = {p.stem for p in SRC.glob("*.c")}
    graph = {}
    for unit in units:
        used = set()
        for path in (SRC / f"{unit}.c", SRC / f"{unit}.h"):
            if path.exists():
                used |= {name for name in includes(path) if name in units and name != unit}
        graph[unit] = used
    return graph


def test_the_units_form_a_tree():
    graph = unit_graph()
    assert graph["main"] >= {"serve", "proto", "search", "deduce", "rules"}
    order, state = [], {}

    def visit(unit, path):
        assert state.get(unit) != "open", "include cycle: " + " -> ".join(path + [unit])
        if state.get(unit) == "done":
            return
        state[unit] = "open"
        for used in sorted(graph[unit]):
            visit(used, path + [unit])
        state[unit] = "done"
        order.append(unit)

    for unit in sorted(graph):
        visit(unit, [])
    assert order[-1] == "main"          # nothing uses main
    for unit in ("search", "deduce"):   # the searches use the service hook, never each other
        assert "serve" in graph[unit] and not graph[unit] & {"main", "search", "deduce"}
    assert graph["serve"] == {"proto", "baud", "rules"} and graph["baud"] == {"proto"}
    assert not graph["proto"] and not graph["rules"]


def declared(header):
    """Functions declared (not defined) at the top level of ``header``."""
    text = strip_comments(header.read_text())
    return set(re.findall(r"^[A-Za-z_][\w \*]*?\b(\w+)\([^;{)]*\)\s*;", text, re.M))


def defined(source):
    text = strip_comments(source.read_text())
    return set(re.findall(r"^[A-Za-z_][\w \*()]*?\b(\w+)\([^;{)]*\)\s*\{", text, re.M))


def test_functions_are_declared_beside_their_definition():
    """What x.h declares, x.c defines (the UART service hook once lived in main.c while
    search.h declared it)."""
    for header in sorted(SRC.glob("*.h")):
        source = header.with_suffix(".c")
        functions = declared(header)
        if not source.exists():
            assert not functions, f"{header.name} declares {functions} with no {source.name}"
            continue
        assert functions, header.name
        missing = functions - defined(source)
        assert not missing, f"{header.name} declares {sorted(missing)}, not defined in {source.name}"
