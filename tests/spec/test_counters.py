"""The counters of each mode are declared once (spec/counters.py): the golden models'
dataclasses, the payload layouts, the deduction engine's counter registers and the
firmware's X-macros all follow the one list."""

import dataclasses
import re

from slitherlink.model import deduce as model_deduce
from slitherlink.model import paper as model_paper
from slitherlink.spec import protocol
from slitherlink.spec import registers as regmap
from slitherlink.spec.counters import DEDUCE_COUNTERS, ENGINE_CLOCKS, PAPER_COUNTERS, names


def fields(cls):
    return tuple(f.name for f in dataclasses.fields(cls))


def x_macro(text, name):
    """The ``(a, b)`` pairs of X-macro ``name`` in a generated header."""
    body = re.search(rf"#define {name}\(X\) \\\n((?:    .*\n)+?)    /\* end \*/", text).group(1)
    return re.findall(r"X\((\w+), (\w+)\)", body)


def test_the_models_count_the_listed_counters():
    assert fields(model_paper.Counters) == names(PAPER_COUNTERS)
    assert fields(model_deduce.Counters) == names(DEDUCE_COUNTERS)
    assert model_deduce.Counters().as_dict() == dict.fromkeys(names(DEDUCE_COUNTERS), 0)
    assert model_deduce.Counters.__module__ == model_deduce.__name__


def test_the_payloads_carry_them_in_order():
    result = [f.name for f in protocol.Result.FIELDS]
    assert result == ["status", "flags", "rows", "cols", *names(PAPER_COUNTERS), "cycles"]
    assert protocol.COUNTERS == (*names(PAPER_COUNTERS), "cycles")
    deduce = [f.name for f in protocol.DeduceResult.FIELDS]
    assert deduce == ["status", "flags", "rows", "cols", *names(DEDUCE_COUNTERS),
                      "engine_clocks", "cycles"]
    assert protocol.DEDUCE_COUNTERS == names(DEDUCE_COUNTERS)
    for c in DEDUCE_COUNTERS:
        assert protocol.DeduceResult.field(c.name).doc == c.doc
        assert protocol.DeduceResult.field(c.name).size == 4


def test_the_engine_has_a_register_per_engine_counter():
    engine = [c.name for c in DEDUCE_COUNTERS if c.engine]
    assert "solutions" not in engine   # the firmware counts the solutions
    assert regmap.DEDUCE_HW_COUNTERS == (*engine, ENGINE_CLOCKS.name)
    assert len(regmap.DEDUCE_COUNTER_REGISTERS) == len(regmap.DEDUCE_HW_COUNTERS)


def test_the_firmware_copies_them_by_x_macro():
    header = protocol.c_header()
    assert x_macro(header, "PROTO_RESULT_COUNTERS") == [(n, n.upper())
                                                          for n in names(PAPER_COUNTERS)]
    pairs = x_macro(header, "PROTO_DEDUCE_RESULT_ENGINE_COUNTERS")
    # every engine register lands in the DEDUCE_RESULT field of its name
    assert [r.lower() for _, r in pairs] == list(regmap.DEDUCE_HW_COUNTERS)
    assert [f.lower() for f, _ in pairs] == [c.name for c in DEDUCE_COUNTERS if c.engine] + [
        "engine_clocks"]
    regs = regmap.c_header()
    for _, register in pairs:
        assert f"#define SLK_DEDUCE_COUNTER_{register} " in regs

