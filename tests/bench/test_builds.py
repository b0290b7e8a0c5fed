"""The builds of the hardware benchmark: a target per size class (bench/builds.py)."""

import pytest

from slitherlink.bench import builds
from slitherlink.spec.target import DEFAULT_TARGET
from slitherlink.spec.uart import FAST_BAUD


def test_classes_put_each_puzzle_on_the_smallest_build_that_holds_it():
    classes = builds.parse_classes("20x36,10x10,15x15,30x25,20x20")
    assert classes == [(10, 10), (15, 15), (20, 20), (20, 36), (30, 25)]
    place = lambda r, c: builds.class_for({"rows": r, "cols": c}, classes)  # noqa: E731
    assert place(4, 4) == place(10, 10) == (10, 10)
    assert place(10, 14) == place(12, 12) == (15, 15)
    assert place(10, 18) == place(16, 19) == (20, 20)
    assert place(14, 24) == place(20, 36) == (20, 36)    # 14x24 is too wide for 20x20
    assert place(30, 25) == place(22, 21) == (30, 25)
    assert place(36, 20) is None and place(40, 40) is None
    for bad in ("10by10", "0x5", "10x65", ""):
        with pytest.raises(ValueError):
            builds.parse_classes(bad)


def test_the_default_class_runs_on_the_default_build():
    """The first default class is the default target's grid, and its target is the default
    target itself (the virtual board's default build, no parameter changed); a larger class
    is the same target at its grid with the fast simulated UART, unless --sim-baud says."""
    first = builds.parse_classes(builds.DEFAULT_CLASSES)[0]
    assert first == (DEFAULT_TARGET.max_rows, DEFAULT_TARGET.max_cols) == builds.DEFAULT_GRID
    assert builds.class_target(first) == DEFAULT_TARGET
    assert builds.vboard_params(builds.class_target(first)) == {}
    larger = builds.class_target((20, 36), band=2)
    # a wider class takes the board's label network (spec.target.PAIRS_MAX_POINTS)
    assert builds.vboard_params(larger) == {"max_rows": 20, "max_cols": 36, "band": 2,
                                            "label_network": "small", "baud": FAST_BAUD}
    assert (larger.paper, larger.deduce, larger.clock_hz) == \
        (DEFAULT_TARGET.paper, DEFAULT_TARGET.deduce, DEFAULT_TARGET.clock_hz)
    assert builds.class_target(first, sim_baud=FAST_BAUD).baud == FAST_BAUD
    assert builds.class_target((20, 36), sim_baud=DEFAULT_TARGET.baud).baud == \
        DEFAULT_TARGET.baud


def test_fmax_is_one_clock_or_one_per_build():
    assert builds.parse_fmax("39.4") == 39.4
    assert builds.parse_fmax("10x10=39.4, 36x20=25") == {"10x10": 39.4, "36x20": 25.0}
    for bad, words in (("0", "bad clock '0'"), ("fast", "bad clock 'fast'"),
                       ("10x10=", "bad clock '' for 10x10"), ("10by10=30", "bad class '10by10'"),
                       ("10x10=30,20x20=-1", "for 20x20"), (",", "bad clock ','")):
        with pytest.raises(ValueError, match=words):
            builds.parse_fmax(bad)
    assert builds.fmax_for({"10x10": 40.0}, "10x10") == 40.0
    assert builds.fmax_for({"10x10": 40.0}, "20x20") is None
    assert builds.fmax_for(25.0, "20x20") == 25.0


def test_fmax_from_the_evidence_is_each_class_s_own_builds():
    """``--fmax evidence``: each class at the ECP5 Fmax of the record of its own build (same
    core, grid, band and label network); a class without a record is left out."""
    import json
    from slitherlink.boards.evidence import EVIDENCE
    assert builds.parse_fmax(" evidence ") == builds.EVIDENCE
    t = DEFAULT_TARGET
    (record,) = [r for r in json.loads(EVIDENCE.read_text())["builds"]
                 if (r["core"], r["max_rows"], r["max_cols"], r["band"], r["label_network"])
                 == (t.core, t.max_rows, t.max_cols, t.band, t.label_network)]
    odd = builds.class_target((13, 17), core="soc-deduce")
    assert (odd.paper, odd.deduce) == (False, True)
    assert builds.evidence_fmax({"10x10": t, "13x17": odd}) == \
        {"10x10": record["ulx3s"]["fmax_mhz"]}
