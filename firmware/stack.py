"""The firmware's deepest stack, read from its ELF.

The firmware runs no interrupts and calls no function through a pointer, so the stack it
can ever use is the deepest chain of calls from its entry: each function's frame is what
its code takes from ``sp`` (``addi sp, sp, -N``, summed when there are several), the calls
are ``jal`` and the ``auipc`` + ``jalr`` pairs a far call or a tail call is made of, and a
tail call is counted as a call (an over-estimate).  Anything this reading cannot bound is
an error, not a guess: a call or a jump through a register it cannot resolve (the firmware
is compiled without jump tables, ``-fno-jump-tables``, so that every such jump is one),
recursion, or ``sp`` moved by a register.

``firmware.build`` checks every build's depth against :data:`spec.registers.STACK_RESERVE`,
the RAM it keeps above the firmware's data::

    depth, chain = deepest(elf)     # bytes, and the functions of the deepest chain
"""

import struct
from bisect import bisect_right

from slitherlink.firmware.elf import FUNCTION, executable, symbols

__all__ = ["StackError", "deepest", "frames_and_calls"]

_RA, _SP, _ZERO = 1, 2, 0


class StackError(ValueError):
    """The ELF's stack cannot be bounded.  ``str()`` is one line."""


def _signed(value, bits):
    return value - (1 << bits) if value >> (bits - 1) else value


def frames_and_calls(elf):
    """``({function: frame bytes}, {function: set of callees})`` of the ELF's functions."""
    spans = sorted((address, address + size, name) for name, address, size, kind
                   in symbols(elf) if kind == FUNCTION and size)
    starts = [start for start, _, _ in spans]

    def function_at(address):
        i = bisect_right(starts, address) - 1
        return spans[i][2] if i >= 0 and address < spans[i][1] else None

    frames = {name: 0 for _, _, name in spans}
    calls = {name: set() for _, _, name in spans}
    for base, code in executable(elf):
        previous = None  # the instruction before: (rd, value) of an auipc
        for offset in range(0, len(code) - 3, 4):
            pc = base + offset
            word, = struct.unpack_from("<I", code, offset)
            owner = function_at(pc)
            auipc, previous = previous, None
            if owner is None:
                continue
            if word & 3 != 3:
                raise StackError(f"{owner}: a compressed instruction at 0x{pc:x} (RV32I only)")
            opcode, rd, rs1 = word & 0x7F, (word >> 7) & 31, (word >> 15) & 31
            funct3, imm_i = (word >> 12) & 7, _signed(word >> 20, 12)

            def link(target, what):
                callee = function_at(target)
                if callee is None:
                    raise StackError(f"{owner}: a {what} at 0x{pc:x} to 0x{target:x}, "
                                     "outside every function")
                if callee != owner:
                    calls[owner].add(callee)

            if opcode == 0x13 and funct3 == 0 and rd == _SP and rs1 == _SP and imm_i < 0:
                frames[owner] += -imm_i                       # addi sp, sp, -N
            elif opcode == 0x33 and rd == _SP:                # add/sub sp, ..., rX
                raise StackError(f"{owner}: sp moved by a register at 0x{pc:x}")
            elif opcode == 0x17:                              # auipc rd, imm
                previous = (rd, pc + _signed(word & 0xFFFFF000, 32))
            elif opcode == 0x6F:                              # jal rd, imm
                imm = _signed(((word >> 31) << 20) | (((word >> 12) & 0xFF) << 12)
                              | (((word >> 20) & 1) << 11) | (((word >> 21) & 0x3FF) << 1), 21)
                target = pc + imm
                if rd == _RA or function_at(target) != owner:
                    link(target, "call")
            elif opcode == 0x67:                              # jalr rd, imm(rs1)
                if auipc is not None and auipc[0] == rs1:
                    link(auipc[1] + imm_i, "call" if rd else "tail call")
                elif rd == _ZERO and rs1 == _RA and imm_i == 0:
                    pass                                      # return
                else:
                    raise StackError(f"{owner}: a {'call' if rd else 'jump'} through a "
                                     f"register at 0x{pc:x}")
    return frames, calls


def deepest(elf, entry="_start"):
    """``(bytes, [functions])``: the deepest stack from ``entry`` (or ``main`` when the
    ELF has no ``entry`` function) and the chain of calls that reaches it."""
    frames, calls = frames_and_calls(elf)
    if entry not in frames:
        entry = "main"
    if entry not in frames:
        raise StackError(f"{elf}: no function {entry!r}")
    memo = {}

    def depth(name, path):
        if name in path:
            raise StackError("recursion: " + " -> ".join(path[path.index(name):] + (name,)))
        if name not in memo:
            below = [depth(callee, path + (name,)) for callee in sorted(calls[name])]
            best = max(below, default=(0, []))
            memo[name] = (frames[name] + best[0], [name] + best[1])
        return memo[name]

    return depth(entry, ())
