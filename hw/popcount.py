"""Popcount trees, the counting logic of paper sections 3.3.1-3.3.2.

The paper counts the 1s of each 32-bit row with the five-step SWAR formula of
its section 3.3.1 and adds the rows up.  We count any number of bits with a
balanced counter tree (a Wallace tree) built for LUT6 FPGAs:

* every level replaces each group of six bits of equal weight by their 3-bit
  count (a 6:3 counter: three 6-input functions, one LUT6 each; the rest of a
  column goes through a 5:3, 4:3 or 3:2 counter or passes), so a level is one
  LUT deep and halves the height of every column of bits;
* when no column holds more than two bits, one carry-chain adder (CARRY4)
  adds the two remaining rows.

An adder tree over n bits costs about 2-3 LUTs per bit on Artix-7; this tree
about one.  No Python recursion and no ``sum()`` over the bits (which hits
``RecursionError`` at elaboration, TOOLCHAIN.md).  Pipeline registers can be
placed every ``register_every`` levels; the result is then always registered.
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["popcount", "count_columns", "popcount_levels", "popcount_latency",
           "columns_levels", "columns_latency", "PopCount"]


def _check_every(register_every):
    if register_every is not None and (not isinstance(register_every, int)
                                       or isinstance(register_every, bool) or register_every < 1):
        raise ValueError(f"register_every must be a positive integer or None, "
                         f"not {register_every!r}")


def _groups(height):
    """How a column of ``height`` bits is cut: sixes (6:3 counters), then a 3:2, 4:3 or
    5:3 counter for the rest, or 1-2 bits passed through to the next level."""
    groups = [6] * (height // 6)
    if height % 6:
        groups.append(height % 6)
    return groups


def _next_heights(heights):
    """Column heights after one counter level (mirrors :func:`popcount`)."""
    out = {}
    for weight, height in heights.items():
        for size in _groups(height):
            outputs = 2 if size == 3 else 3 if size > 3 else 0
            if outputs:
                for k in range(outputs):
                    out[weight + k] = out.get(weight + k, 0) + 1
            else:
                out[weight] = out.get(weight, 0) + size
    return {w: h for w, h in out.items() if h}


def popcount_levels(count):
    """Logic levels of the tree over ``count`` bits: counter levels, plus 1 for the final add."""
    return columns_levels({0: count})


def columns_levels(heights):
    """Logic levels of :func:`count_columns` for columns of these heights ``{weight: n}``."""
    heights, levels = {w: h for w, h in heights.items() if h}, 0
    while heights and max(heights.values()) > 2:
        heights = _next_heights(heights)
        levels += 1
    if any(h == 2 for h in heights.values()):
        levels += 1
    return levels


def popcount_latency(count, register_every):
    """Register stages of :func:`popcount` for ``count`` bits (0 when combinational)."""
    return columns_latency({0: count}, register_every)


def columns_latency(heights, register_every):
    """Register stages of :func:`count_columns` (0 when combinational)."""
    _check_every(register_every)
    if register_every is None:
        return 0
    return max(1, -(-columns_levels(heights) // register_every))


def _full(a, b, c):
    return a ^ b ^ c, (a & b) | (a & c) | (b & c)


def _counter(bits):
    """Count of up to six values (bit vectors of equal width, counted bitwise) as
    three vectors of weights 1, 2, 4, in plain logic (one LUT6 per output bit)."""
    bits = list(bits)
    a, b, c, d, e, f = (bits + [Const(0, len(bits[0]))] * 6)[:6]
    s1, c1 = _full(a, b, c)
    s2, c2 = _full(d, e, f)
    ones = s1 ^ s2
    twos, fours = _full(c1, c2, s1 & s2)
    return ones, twos, fours


def popcount(m, bits, *, register_every=None, domain="sync", name="pop"):
    """Number of 1s among ``bits`` (1-bit Amaranth values), by a counter tree.

    Returns a Value; with ``register_every`` set it lags the inputs by
    :func:`popcount_latency` cycles of ``domain``.
    """
    bits = list(bits)
    return count_columns(m, {0: bits}, len(bits), register_every=register_every,
                         domain=domain, name=name)


def count_columns(m, inputs, maximum, *, register_every=None, domain="sync", name="pop"):
    """The sum of 1-bit values with weights: ``inputs`` is ``{weight: [bits]}``, each
    bit worth ``2**weight``; ``maximum`` bounds the sum (it sets the result width).

    The same counter tree as :func:`popcount`; callers use it to add partial counts
    computed by their own fused logic.  Latency: :func:`columns_latency`.
    """
    _check_every(register_every)
    latency = columns_latency({w: len(b) for w, b in inputs.items()}, register_every)
    # a column is one vector Signal of the bits of one weight; a level works on
    # whole vectors (six slices in, three out), which keeps the simulator fast
    columns = {}
    for weight, bits in sorted(inputs.items()):
        if bits:
            columns[weight] = Signal(len(bits), name=f"{name}_in_w{weight}")
            m.d.comb += columns[weight].eq(Cat(*bits))
    level = stage = 0

    def register():
        nonlocal columns, stage
        new = {}
        for weight, column in columns.items():
            new[weight] = Signal(len(column), name=f"{name}_s{stage}_w{weight}")
            m.d[domain] += new[weight].eq(column)
        columns = new
        stage += 1

    while columns and max(len(c) for c in columns.values()) > 2:
        pieces = {}
        for weight, column in sorted(columns.items()):
            height = len(column)
            g = height // 6
            if g:  # g 6:3 counters side by side, on six g-bit slices
                outs = _counter([column[i * g:(i + 1) * g] for i in range(6)])
                for k, v in enumerate(outs):
                    pieces.setdefault(weight + k, []).append(v)
            rest = [column[i] for i in range(6 * g, height)]
            if len(rest) >= 3:
                outs = _full(*rest) if len(rest) == 3 else _counter(rest)
                for k, v in enumerate(outs):
                    pieces.setdefault(weight + k, []).append(v)
            elif rest:
                pieces.setdefault(weight, []).extend(rest)
        columns = {}
        for weight, parts in pieces.items():
            columns[weight] = Signal(sum(len(p) for p in parts), name=f"{name}_l{level}_w{weight}")
            m.d.comb += columns[weight].eq(Cat(*parts))
        level += 1
        if register_every is not None and level % register_every == 0:
            register()

    width = max(maximum, 1).bit_length()
    rows = [Const(0, width), Const(0, width)]
    for i in range(2):
        row = [Const(0, 1)] * width
        for weight, column in columns.items():
            if i < len(column) and weight < width:  # higher weights are always 0
                row[weight] = column[i]
        rows[i] = Cat(*row)
    total = Signal(width, name=f"{name}_sum")
    result = total
    if any(len(c) == 2 for c in columns.values()):
        m.d.comb += total.eq(rows[0] + rows[1])  # the one carry chain
        level += 1
        if register_every is not None and level % register_every == 0:
            result = Signal(width, name=f"{name}_s{stage}")
            m.d[domain] += result.eq(total)
            stage += 1
    else:
        m.d.comb += total.eq(rows[0])
    while stage < latency:
        r = Signal(width, name=f"{name}_out{stage}")
        m.d[domain] += r.eq(result)
        result = r
        stage += 1
    return result


class PopCount(wiring.Component):
    """Number of 1s in ``bits``, by the counter tree of :func:`popcount`.

    ``latency`` is the number of clock cycles from ``bits`` to ``count``.
    """

    def __init__(self, width, *, register_every=None):
        if not isinstance(width, int) or width < 0:
            raise ValueError(f"popcount width must be a non-negative integer, not {width!r}")
        _check_every(register_every)
        self.width = width
        self.register_every = register_every
        self.latency = popcount_latency(width, register_every)
        super().__init__({
            "bits": In(width),
            "count": Out(max(width, 1).bit_length()),
        })

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.count.eq(popcount(m, [self.bits[i] for i in range(self.width)],
                                           register_every=self.register_every))
        return m
