"""The band-of-rows model (model/band.py) against the deduction engine's golden
model (model/deduce.py): the sweep pass is one sweep, the flood and label passes
find what ``floods`` and ``labels`` find (random states and states met in real
corpus searches, several band heights up to R+2), and the band engine runs the
same search as ``solve``."""

import dataclasses
import random

import pytest

import slitherlink.model.deduce as deduce_model
from slitherlink.model.band import (BandCounters, BandCycleModel, _line_adjacency, band_floods,
                                    band_labels, band_solve, band_sweep, register_labels,
                                    sweep_halo, sweep_span)
from slitherlink.model.deduce import (C0, C1, EMPTY_BASE, H1, V1, Counters, Engine, floods,
                                      labels, segment_base, solve, sweep)
from slitherlink.spec.deduce import VARS
from tests.conftest import load
from tests.line_states import fewer_lines, line_states as states_of


def bands_of(geo):
    return sorted({1, 2, 3, 4, geo.rows + 1, geo.rows + 2})


def random_states(seed, names, count):
    """Consistent random states (each variable unknown, 0 or 1) with the frame
    OUT, and the states ``propagate`` makes of them."""
    rng = random.Random(seed)
    for name in names:
        puzzle, _ = load(name)
        engine = Engine(puzzle, probing=False)
        geo = engine.geo
        for _ in range(count):
            s = [0] * 10
            s[C0] = geo.frame
            density = rng.choice((0.05, 0.2, 0.5))
            for b in range(0, 10, 2):
                valid = geo.valid[VARS[b // 2]] & (geo.grid if b == C0 else geo.all)
                for q in range(geo.cells):
                    if valid >> q & 1 and rng.random() < density:
                        s[b + (rng.random() < 0.5)] |= 1 << q
            s[C1] &= ~geo.frame
            yield engine, s
            engine.clear_labels()
            state, bad = engine.propagate(s)
            if not bad:
                yield engine, state


NAMES = ("loopy_7x7_normal_01", "janko_0625", "edge_2x2_3_corner", "loopy_5x5_easy_02",
         "loopy_10x10_tricky_04")


# -- the sweep pass --------------------------------------------------------------------------

def test_rules_reach_one_row():
    assert sweep_halo() == (1, 1)


def test_sweep_pass_is_one_sweep():
    for engine, state in random_states(1, NAMES, 6):
        want = sweep(engine.geo, engine.anchors, state)
        for band in bands_of(engine.geo):
            new, _ = band_sweep(engine.geo, engine.anchors, state, band)
            assert new == want


# -- the flood pass --------------------------------------------------------------------------

def check_floods(geo, state):
    want_new, want_bad, iterations = floods(geo, state)
    passes = set()
    for band in bands_of(geo):
        new, bad, n = band_floods(geo, state, band)
        assert bad == want_bad
        if not want_bad:
            assert new == want_new
        passes.add(n)
    # the rows of a word are chained in the pass direction: the band height
    # sets the clocks of a pass, not what a pass computes
    assert len(passes) == 1
    n = passes.pop()
    assert 1 <= n <= iterations + 1
    return n


def test_floods_random_states():
    for engine, state in random_states(2, NAMES, 12):
        check_floods(engine.geo, state)


def test_flood_conflicts_and_deductions_both_ways():
    """A random state's floods hit every outcome: conflicts, deductions, none."""
    seen = set()
    for engine, state in random_states(3, NAMES, 12):
        new, bad, _ = floods(engine.geo, state)
        seen.add("conflict" if bad else "deduced" if new != state else "none")
        check_floods(engine.geo, state)
    assert seen == {"conflict", "deduced", "none"}


def test_flood_passes_hand_example():
    """A serpentine corridor: the OUT flood from the frame needs one pass per
    turn back up; the IN flood's seed is the first IN cell in scan order."""
    from slitherlink.model.deduce import Geometry
    geo = Geometry(3, 3)
    s = [0] * 10
    s[C0] = geo.frame
    s[C1] = geo.grid          # every grid cell IN: the IN flood reaches all at once
    new, bad, passes = band_floods(geo, s, 1)
    assert not bad and new == s
    # pass 1 down: row 1 from the seed (1,1) spreads to its row and, chained,
    # to rows 2 and 3; no row offers the row above it anything new: nothing is
    # pending, so no second pass
    assert passes == 1
    # a wall (LINE V edges) under row 1 except at column 3, under row 2 except
    # at column 1, and the cells below reach up: IN seed at the bottom row
    t = [0] * 10
    t[C0] = geo.frame
    t[C1] = geo.bit(2, 0)
    for c in (0, 1):
        t[V1] |= geo.bit(0, c)
    for c in (1, 2):
        t[V1] |= geo.bit(1, c)
    # region: cells not OUT; reach from (2,0) -> row 2 -> up at column 0 -> row 1
    # -> up at column 2 -> row 0: two turns up, each a bottom-up pass
    new, bad, passes = band_floods(geo, t, 1)
    want = floods(geo, t)
    assert (new, bad) == want[:2] and not bad
    # down (the seed, row 2: it would seed row 1, pending), up (rows 1 and 0 chained:
    # nothing pending); before the pending test a third pass confirmed it
    assert passes == 2


# -- the label pass ---------------------------------------------------------------------------

def line_states(seed, count):
    """Line states (:func:`tests.line_states.line_states`) of three corpus solutions."""
    return states_of(("loopy_7x7_normal_01", "janko_0625", "loopy_10x10_tricky_04"), seed,
                     count)


def check_labels(geo, state, warm=EMPTY_BASE):
    want_new, want_bad, _, want_reg = labels(geo, state, warm)
    passes = set()
    for band in bands_of(geo):
        new, bad, n, lab, closed = band_labels(geo, state, band, warm)
        assert bad == want_bad
        assert closed == (want_reg is None)
        if not want_bad:
            assert new == want_new
        if want_reg is not None:
            want_lab = register_labels(geo, want_reg)
            on = [q for q in range(geo.cells)
                  if geo.points >> q & 1 and (want_lab[q] != q or lab[q] != q)]
            assert [lab[q] for q in on] == [want_lab[q] for q in on]
        passes.add(n)
    assert len(passes) == 1
    return passes.pop(), want_new != state, want_bad


def test_labels_cold():
    outcomes = set()
    for geo, state in line_states(4, 15):
        _, deduced, bad = check_labels(geo, state)
        outcomes.add((deduced, bad))
    assert outcomes == {(False, False), (True, False), (False, True)}


def test_labels_warm_registers():
    """From registers settled on fewer lines (a segment_base), the same findings and
    registers, and never more passes than from cleared registers."""
    rng = random.Random(5)
    runs = 0
    for geo, state in line_states(6, 12):
        fewer = fewer_lines(rng, geo, state)
        base = segment_base(geo, fewer)
        if base is None:
            continue
        warm_passes, *_ = check_labels(geo, state, base)
        cold_passes, *_ = check_labels(geo, state)
        # a warm start can only lower every label's start value
        assert warm_passes <= cold_passes
        runs += 1
    assert runs > 20


def test_a_dropped_label_run_is_a_warm_start():
    """A label run stopped after ``max_passes`` (dropped beside a flood run that deduced
    something, BandEngine) leaves labels from which a run on the same or more lines
    gives the findings and labels of a run from the registers before it."""
    rng = random.Random(7)
    dropped = 0
    for geo, state in line_states(8, 12):
        fewer = fewer_lines(rng, geo, state)
        full = band_labels(geo, fewer, 1)[2]
        for cut in range(1, full + 1):
            _, _, spent, partial, _ = band_labels(geo, fewer, 1, max_passes=cut)
            assert spent == cut
            dropped += cut < full
            for lines in (fewer, state):
                want_new, want_bad, _, want_lab, want_closed = band_labels(geo, lines, 1)
                new, bad, _, lab, closed = band_labels(geo, lines, 1, start=partial)
                assert (bad, closed) == (want_bad, want_closed)
                if not bad:
                    assert new == want_new
                on = set(_line_adjacency(geo, lines[H1], lines[V1]))
                assert all(lab[q] == want_lab[q] for q in on)
    assert dropped >= 10

def test_register_labels_are_component_minimums():
    for geo, state in line_states(7, 5):
        reg = segment_base(geo, state)
        if reg is None:
            continue
        lab = register_labels(geo, reg)
        # the model's settled labels (naive propagation) agree
        from tests.model.test_deduce_model import naive_labels
        settled, _ = naive_labels(geo, state)
        assert all(lab[q] == v for q, v in settled.items())


# -- states met in real searches ---------------------------------------------------------------

SEARCHED = ("loopy_10x10_hard_01", "janko_0047", "janko_0872", "edge_5x5_noclues",
            "loopy_15x15_hard_01")


def recorded(names, monkeypatch, limit=60):
    """The inputs of every floods and labels call of whole searches, sampled."""
    flood_calls, label_calls = [], []
    real_floods, real_labels = deduce_model.floods, deduce_model.labels

    def spy_floods(geo, state):
        flood_calls.append((geo, list(state)))
        return real_floods(geo, state)

    def spy_labels(geo, state, warm=EMPTY_BASE):
        label_calls.append((geo, list(state), warm))
        return real_labels(geo, state, warm)
    monkeypatch.setattr(deduce_model, "floods", spy_floods)
    monkeypatch.setattr(deduce_model, "labels", spy_labels)
    for name in names:
        puzzle, _ = load(name)
        band_solve(puzzle, max_solutions=2, max_decisions=40, check=True)
    monkeypatch.undo()
    rng = random.Random(8)
    return (rng.sample(flood_calls, min(limit, len(flood_calls))),
            rng.sample(label_calls, min(limit, len(label_calls))))


def test_recorded_states(monkeypatch):
    floods_in, labels_in = recorded(SEARCHED, monkeypatch)
    assert len(floods_in) >= 50 and len(labels_in) >= 50
    outcomes = set()
    for geo, state in floods_in:
        check_floods(geo, state)
    for geo, state, warm in labels_in:
        _, deduced, bad = check_labels(geo, state, warm)
        outcomes.add((deduced, bad))
    assert len(outcomes) >= 2


# -- the band engine: the same search ------------------------------------------------------

@pytest.mark.parametrize("name", ["loopy_10x10_hard_01", "janko_0047", "janko_0872",
                                  "edge_10x10_two_solutions", "edge_5x5_noclues",
                                  "edge_10x10_global_unsat", "loopy_15x15_hard_01",
                                  "loopy_20x36_hard_01"])
def test_same_search_as_solve(name):
    puzzle, _ = load(name)
    want = solve(puzzle, max_solutions=2)
    got = band_solve(puzzle, max_solutions=2, check=True)
    assert got.outcome.solutions == want.solutions
    assert got.outcome.counters == want.counters
    assert (got.outcome.exhausted, got.outcome.limit_reached) == \
        (want.exhausted, want.limit_reached)
    b, c = got.band, want.counters
    assert b.sweep_passes == c.sweeps
    assert c.floods <= b.flood_passes <= c.flood_iterations + c.floods
    # the labels after the floods (model.deduce's sequence): every label pass costs clocks
    seq = band_solve(puzzle, max_solutions=2, check=True, beside=False)
    assert seq.outcome.counters == want.counters
    s = seq.band
    assert c.label_runs <= s.label_passes <= c.label_iterations + c.label_runs
    assert (s.late_label_passes, s.late_label_runs) == (s.label_passes, c.label_runs)
    assert s.flood_passes == b.flood_passes and s.sweep_spans == b.sweep_spans
    # beside the floods: the dropped runs' passes too, but only the late ones cost clocks
    assert b.late_label_passes <= b.label_passes and b.late_label_runs <= c.label_runs
    if c.label_runs:
        assert b.label_passes >= c.label_runs
    assert got.cycles(1) <= seq.cycles(1)
    if c.probes:
        assert got.cycles(1) < seq.cycles(1)
    # the passes do not depend on the band height (the words partial label passes
    # stream do, docs/deduce.md section 7.3)
    other = band_solve(puzzle, max_solutions=2, band=puzzle.rows + 2, check=False).band
    assert dataclasses.replace(other, late_label_skipped=0).as_dict() == \
        dataclasses.replace(b, late_label_skipped=0).as_dict()
    # the sweep spans (check=True checked that every row a sweep changed was in its
    # span): never more than whole passes, and at band 1 fewer on every puzzle that probes
    whole = dataclasses.replace(b, sweep_spans={})
    for band in (1, 2, 4):
        words, inner = b.sweep_spans[band]
        assert inner <= b.sweep_passes
        assert words <= b.sweep_passes * -(-(puzzle.rows + 2) // band)
        spans = BandCycleModel(band).cycles(c, b, puzzle.rows)
        assert spans == got.cycles(band) <= BandCycleModel(band).cycles(c, whole, puzzle.rows)
        if c.probes and band == 1:
            assert spans < BandCycleModel(band).cycles(c, whole, puzzle.rows)


def test_the_span_check_fails_on_a_span_too_narrow(monkeypatch):
    """The spans are checked, not assumed: without the word either side of the rows
    that changed, a sweep changes a row outside its span and the check says so."""
    import slitherlink.model.band as band_model

    def narrow(seed, band, words):
        if seed is None:
            return 0, words - 1
        return min(seed) // band, max(seed) // band

    monkeypatch.setattr(band_model, "sweep_span", narrow)
    puzzle, _ = load("janko_0047")
    with pytest.raises(AssertionError, match="outside its span"):
        band_solve(puzzle, max_solutions=2, check=True)


def test_band_solve_keeps_limits():
    puzzle, _ = load("edge_5x5_noclues")
    got = band_solve(puzzle, max_solutions=None, max_decisions=3)
    want = solve(puzzle, max_solutions=None, max_decisions=3)
    assert got.outcome.limit_reached and got.outcome.counters == want.counters
    from slitherlink.model import deduce
    assert deduce.Engine is Engine  # the engine class is put back


def test_cycle_model():
    c = Counters(sweeps=10, saves=3, restores=2, decisions=1, backtracks=1, label_runs=2)
    # 9 label passes, of which 5 after the flood runs beside them; 2 runs outlast them
    b = BandCounters(sweep_passes=10, flood_passes=7, label_passes=9, late_label_passes=5,
                     late_label_runs=2)
    # 10x10: 12 framed rows; a label run that outlasts its flood run drains one clock
    assert BandCycleModel(1).cycles(c, b, 10) == 22 * (12 + 2) + 2 + 10 * 5 + 40 * 2
    # the passes beside the floods cost nothing
    more = dataclasses.replace(b, label_passes=30)
    assert BandCycleModel(1).cycles(c, more, 10) == BandCycleModel(1).cycles(c, b, 10)
    assert BandCycleModel(2).cycles(c, b, 10) == 22 * (6 + 2) + 2 + 10 * 5 + 40 * 2
    assert BandCycleModel(5, latency=3).cycles(c, b, 10) == 22 * (3 + 3) + 2 + 10 * 5 + 40 * 2
    assert BandCycleModel(1, drain=0).cycles(c, b, 10) == 22 * (12 + 2) + 10 * 5 + 40 * 2
    assert BandCycleModel(12, latency=0).pass_clocks(10) == 1
    # sweep spans: the words written, one clock more for a span after word 0
    b.sweep_spans = {1: [40, 3], 2: [25, 4]}
    assert BandCycleModel(1).cycles(c, b, 10) == \
        (40 + 3 + 2 * 10) + 12 * (12 + 2) + 2 + 10 * 5 + 40 * 2
    assert BandCycleModel(2, latency=1).cycles(c, b, 10) == \
        (25 + 4 + 10) + 12 * (6 + 1) + 2 + 10 * 5 + 40 * 2
    # a band height without spans: whole sweep passes
    assert BandCycleModel(4).cycles(c, b, 10) == 22 * (3 + 2) + 2 + 10 * 5 + 40 * 2


def test_sweep_span():
    assert sweep_span(None, 1, 12) == (0, 11)
    assert sweep_span({5}, 1, 12) == (4, 6)
    assert sweep_span({0, 3}, 1, 12) == (0, 4)
    assert sweep_span({11}, 1, 12) == (10, 11)
    assert sweep_span({5, 6}, 2, 6) == (1, 4)     # rows 5, 6: words 2, 3
    assert sweep_span({1}, 4, 3) == (0, 1)
