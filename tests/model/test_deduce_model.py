"""The deduction engine's golden model (model/deduce.py): search against exhaustive
enumeration, the generated sweep against a plain reading of the rule table, the
floods and the label stage against independent computations."""

import itertools
import random
from collections import deque

import pytest
from hypothesis import given, settings, strategies as st

from slitherlink.host.check import check
from slitherlink.host.puzzle import Puzzle
from slitherlink.model.deduce import (C0, C1, H0, H1, V0, V1, Engine, Geometry,
                          floods, labels, solve, sweep)
from slitherlink.spec.deduce import VARS, rule_table
from tests.conftest import load
from tests.model.test_paper_model import brute_force, small_puzzles


# -- search against exhaustive enumeration ------------------------------------------

@settings(max_examples=150, deadline=None)
@given(small_puzzles(), st.booleans(), st.booleans())
def test_same_solutions_as_exhaustive_search(puzzle, probing, early_loop):
    result = solve(puzzle, max_solutions=None, probing=probing, early_loop=early_loop)
    assert result.exhausted and not result.limit_reached
    assert sorted(result.solutions) == brute_force(puzzle)
    assert len(set(result.solutions)) == len(result.solutions)


@settings(max_examples=80, deadline=None)
@given(small_puzzles())
def test_first_solution_and_uniqueness_modes(puzzle):
    everything = brute_force(puzzle)
    one = solve(puzzle, max_solutions=1)
    two = solve(puzzle, max_solutions=2)
    assert len(one.solutions) == min(1, len(everything))
    assert len(two.solutions) == min(2, len(everything))
    assert one.solutions == two.solutions[:1]
    assert two.exhausted == (len(everything) < 2)
    for found in one.solutions + two.solutions:
        assert check(puzzle, found).ok


def state_of(geo, colouring):
    """The engine state with every cell known from ``colouring``."""
    s = [0] * 10
    s[C0] = geo.frame
    for r, row in enumerate(colouring):
        for c, v in enumerate(row):
            s[C1 if v else C0] |= geo.bit(r, c)
    return s


@pytest.mark.parametrize("rows,cols", [(2, 2), (2, 3), (3, 3), (3, 4)])
def test_a_known_colouring_is_accepted_exactly_when_it_is_a_solution(rows, cols):
    """Every colouring of the grid, with clues read off a random colouring: the
    engine's propagation finds a conflict exactly when the checker rejects it."""
    rng = random.Random(rows * 10 + cols)
    everything = [tuple(bits[r * cols:(r + 1) * cols] for r in range(rows))
                  for bits in itertools.product((False, True), repeat=rows * cols)]
    for trial in range(6):
        truth = rng.choice(everything)
        inside = lambda r, c: 0 <= r < rows and 0 <= c < cols and truth[r][c]
        clues = [[(sum(inside(r + dr, c + dc) != inside(r, c)
                       for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
                   if rng.random() < 0.5 else None) for c in range(cols)] for r in range(rows)]
        clues = [[None if v is None or v > 3 else v for v in row] for row in clues]
        puzzle = Puzzle(clues)
        engine = Engine(puzzle)
        for colouring in everything:
            engine.clear_labels()
            _, bad = engine.propagate(state_of(engine.geo, colouring))
            assert bad == (not check(puzzle, colouring).ok), (clues, colouring)


def test_limits_and_counters(corpus):
    puzzle, _ = load("edge_5x5_noclues")
    limited = solve(puzzle, max_solutions=None, max_decisions=3)
    assert limited.limit_reached and not limited.exhausted
    assert limited.counters.decisions == 3
    full = solve(puzzle, max_solutions=2)
    c = full.counters
    assert len(full.solutions) == 2 and c.decisions >= 1 and c.sweeps > 0
    assert c.saves == c.probes + c.decisions


def test_the_engine_adapter(corpus):
    from slitherlink.host.engines import Status, get_engine
    puzzle, solution = load("loopy_10x10_tricky_04")
    result = get_engine("deduce")(puzzle, unique=True)
    assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
    assert result.counters["cycles"] > 0 and result.counters["sweeps"] > 0
    puzzle, _ = load("edge_5x5_noclues")
    limited = get_engine("deduce")(puzzle, unique=True, max_decisions=1)
    assert limited.status is Status.LIMIT


# -- the generated sweep against the rule table, read plainly -----------------------------

def reference_sweep(geo, anchors, state):
    """Every rule at every anchor, one at a time, with dictionaries."""
    w = geo.width
    new = list(state)
    for name, rules in rule_table().items():
        for p in range(geo.cells):
            if not anchors[name] >> p & 1:
                continue
            for rule in rules:
                def board_bit(lit):
                    var, (dr, dc), value = lit
                    return 2 * VARS.index(var) + value, p + dr * w + dc
                if all(state[b] >> q & 1 for b, q in map(board_bit, rule.premises)):
                    b, q = board_bit(rule.conclusion)
                    new[b] |= 1 << q
    return new


def random_engine_states(seed, count):
    """States met while solving corpus puzzles, and random corruptions of them."""
    rng = random.Random(seed)
    out = []
    for name in ("loopy_7x7_normal_01", "janko_0625", "edge_2x2_3_corner", "loopy_5x5_easy_02"):
        puzzle, _ = load(name)
        engine = Engine(puzzle, probing=False)
        state = engine.initial_state()
        for _ in range(count):
            s = list(state)
            for b in range(10):
                for _ in range(rng.randrange(4)):
                    valid = engine.geo.valid[VARS[b // 2]]
                    q = rng.randrange(engine.geo.cells)
                    if valid >> q & 1 and not s[b ^ 1] >> q & 1:
                        s[b] |= 1 << q
            out.append((engine, s))
            engine.clear_labels()
            state, _ = engine.propagate(s) if rng.random() < 0.5 else (s, False)
    return out


def test_generated_sweep_matches_the_table():
    for engine, state in random_engine_states(1, 12):
        assert sweep(engine.geo, engine.anchors, state) == \
            reference_sweep(engine.geo, engine.anchors, state)


# -- floods and labels against independent computations --------------------------------------

def bfs(geo, state, seeds, passable):
    w = geo.width
    seen, queue = set(seeds), deque(seeds)
    while queue:
        q = queue.popleft()
        for n, edge in ((q + 1, (H1, q)), (q - 1, (H1, q - 1)),
                        (q + w, (V1, q)), (q - w, (V1, q - w))):
            if 0 <= n < geo.cells and passable(n) and not state[edge[0]] >> edge[1] & 1 \
                    and n not in seen:
                seen.add(n)
                queue.append(n)
    return seen


def test_floods_against_breadth_first_search():
    for engine, state in random_engine_states(2, 15):
        geo = engine.geo
        if any(state[i] & state[i + 1] for i in range(0, 10, 2)):
            continue
        new, bad, cycles = floods(geo, state)
        grid = [q for q in range(geo.cells) if geo.grid >> q & 1]
        ins = [q for q in grid if state[C1] >> q & 1]
        outs = [q for q in grid if state[C0] >> q & 1]
        frame = [q for q in range(geo.cells) if geo.frame >> q & 1
                 and not state[C1] >> q & 1]
        escape = bfs(geo, state, frame, lambda n: not state[C1] >> n & 1)
        want_bad = any(q not in escape for q in outs)
        if ins:
            reach = bfs(geo, state, [ins[0]],
                        lambda n: geo.grid >> n & 1 and not state[C0] >> n & 1)
            want_bad |= any(q not in reach for q in ins)
        assert bad == want_bad
        for q in grid:
            unknown = not (state[C0] | state[C1]) >> q & 1
            if unknown and ins and q not in reach:
                assert new[C0] >> q & 1
            if unknown and q not in escape:
                assert new[C1] >> q & 1
        assert cycles >= 1


def naive_labels(geo, state, start=None):
    """Synchronous min-label propagation, one loop per clock, from the labels
    ``start`` (default: every point its own index)."""
    w = geo.width
    edges = [(q - w, q) for q in range(geo.cells) if state[H1] >> q & 1]
    edges += [(q - 1, q) for q in range(geo.cells) if state[V1] >> q & 1]
    label = {q: (start or {}).get(q, q) for e in edges for q in e}
    clocks = 0
    while True:
        clocks += 1
        new = dict(label)
        for a, b in edges:
            new[a] = min(new[a], label[b])
            new[b] = min(new[b], label[a])
        if new == label:
            return label, clocks
        label = new


def line_states(seed, count):
    """Lines of corpus solutions, partly removed (paths), or all (one closed loop)."""
    rng = random.Random(seed)
    for name in ("loopy_7x7_normal_01", "janko_0625", "loopy_10x10_tricky_04"):
        puzzle, solution = load(name)
        engine = Engine(puzzle)
        full, bad = engine.propagate(state_of(engine.geo, solution))
        assert not bad
        yield engine.geo, full
        for _ in range(count):
            s = [0] * 10
            s[C0] = engine.geo.frame
            for b in (H1, V1):
                for q in range(engine.geo.cells):
                    if full[b] >> q & 1 and rng.random() < 0.8:
                        s[b] |= 1 << q
            yield engine.geo, s


def test_label_clocks_match_min_label_propagation():
    for geo, state in line_states(3, 20):
        _, bad, clocks, _ = labels(geo, state)
        _, want = naive_labels(geo, state)
        assert clocks == want
        assert not bad  # parts of one loop, or the whole of it


def test_labels_close_segments_and_reject_early_loops():
    geo = Geometry(4, 4)
    w = geo.width
    s = [0] * 10
    s[C0] = geo.frame
    # a unit square of lines around grid cell (1,1) (framed bit 2*w+2): a closed loop
    cell = 2 * w + 2
    s[H1] |= (1 << (cell - 1)) | (1 << cell)      # west and east sides
    s[V1] |= (1 << (cell - w)) | (1 << cell)      # north and south sides
    new, bad, _, _ = labels(geo, s)
    assert not bad and new[H0] and new[V0]        # the only loop: every other edge is NOLINE
    other = list(s)
    other[H1] |= 1 << (4 * w + 4)                 # plus a line elsewhere
    assert labels(geo, other)[1]                  # conflict
    # an open three-sided square plus a line elsewhere: the fourth side is NOLINE
    three = list(other)
    three[V1] &= ~(1 << cell)
    new, bad, _, _ = labels(geo, three)
    assert not bad and new[V0] >> cell & 1


def test_warm_label_registers():
    """The label registers keep what they settled on: from a segment_base of fewer
    lines the stage finds the same deductions and conflicts as from scratch, in the
    clocks a clock-by-clock simulation from those settled labels takes."""
    from slitherlink.model.deduce import segment_base
    rng = random.Random(4)
    for geo, state in line_states(5, 15):
        fewer = list(state)
        for b in (H1, V1):
            for q in range(geo.cells):
                if fewer[b] >> q & 1 and rng.random() < 0.3:
                    fewer[b] &= ~(1 << q)
        base = segment_base(geo, fewer)
        if base is None:
            continue
        settled, _ = naive_labels(geo, fewer)
        new, bad, clocks, _ = labels(geo, state, base)
        cold_new, cold_bad, cold_clocks, _ = labels(geo, state)
        assert (new, bad) == (cold_new, cold_bad)
        assert clocks == naive_labels(geo, state, settled)[1] <= cold_clocks
