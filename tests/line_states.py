"""Line states for the label tests of the golden models and the gateware: a corpus
solution's loop and its parts, a stray line beside it, random lines of at most two a point
(docs/deduce.md section 8)."""

import random

from slitherlink.model.deduce import C0, C1, H0, H1, V0, V1, Engine
from tests.conftest import load

__all__ = ["solution_state", "lattice_edges", "line_states", "fewer_lines"]


def solution_state(name):
    puzzle, solution = load(name)
    engine = Engine(puzzle)
    geo = engine.geo
    s = [0] * 10
    s[C0] = geo.frame
    for r, row in enumerate(solution):
        for c, v in enumerate(row):
            s[C1 if v else C0] |= geo.bit(r, c)
    full, bad = engine.propagate(s)
    assert not bad
    return geo, full


def lattice_edges(geo):
    w = geo.width
    edges = [(H1, q, q - w, q) for q in range(geo.cells)
             if q >= w and geo.points >> q & 1 and geo.points >> (q - w) & 1]
    edges += [(V1, q, q - 1, q) for q in range(geo.cells)
              if geo.points >> q & 1 and q % w >= 1]
    return edges


def line_states(names, seed, count):
    """Per puzzle: its solution's loop (settle), the loop with a stray line (conflict),
    parts of it (paths: end pairs), random lines of at most two a point, and no line."""
    rng = random.Random(seed)
    for name in names:
        geo, full = solution_state(name)
        yield geo, full
        yield geo, [0] * 10
        edges = lattice_edges(geo)
        for b, q, a, z in edges:
            if not full[b] >> q & 1:
                ends = {a, z}
                touches = any(sum(full[bb] >> qq & 1 for bb, qq, aa, zz in edges
                                  if p in (aa, zz)) for p in ends)
                if not touches:
                    stray = list(full)
                    stray[b] |= 1 << q
                    stray[b - 1] &= ~(1 << q)
                    yield geo, stray
                    # one line of the loop removed: a path whose ends are neighbours
                    # (an end pair, with the stray line another component)
                    for bb in (H1, V1):
                        low = full[bb] & -full[bb]
                        if low:
                            cut = list(stray)
                            cut[bb] &= ~low
                            yield geo, cut
                            break
                    break
        for _ in range(count):
            t = [0] * 10
            t[C0] = geo.frame
            keep = rng.choice((0.3, 0.8, 0.95))
            for b in (H1, V1):
                for q in range(geo.cells):
                    if full[b] >> q & 1 and rng.random() < keep:
                        t[b] |= 1 << q
            yield geo, t
            u = [0] * 10
            u[C0] = geo.frame
            degree = {}
            order = list(edges)
            rng.shuffle(order)
            for b, q, a, z in order[:rng.randrange(len(order) + 1)]:
                if degree.get(a, 0) < 2 and degree.get(z, 0) < 2:
                    u[b] |= 1 << q
                    degree[a] = degree.get(a, 0) + 1
                    degree[z] = degree.get(z, 0) + 1
            for b in (H0, V0):
                valid = geo.valid["H" if b == H0 else "V"]
                for q in range(geo.cells):
                    if valid >> q & 1 and not u[b + 1] >> q & 1 and rng.random() < 0.2:
                        u[b] |= 1 << q
            yield geo, u


def fewer_lines(rng, geo, state):
    fewer = list(state)
    for b in (H1, V1):
        for q in range(geo.cells):
            if fewer[b] >> q & 1 and rng.random() < 0.3:
                fewer[b] &= ~(1 << q)
    return fewer
