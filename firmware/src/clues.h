/* A SOLVE's clue codes (PROTO_SOLVE_CLUES: 4 bits a cell, row-major, two cells a byte, the
   first in the low nibble), eight cells at a time: a word of eight codes and, per code, one
   bit at the code's lowest bit (bit 4j for cell j of the word) saying what the code is.
   Pure C: rules.c is also compiled for the host (tests/firmware/test_rules.py). */
#ifndef CLUES_H
#define CLUES_H

#include <stdint.h>
#include "slk_protocol.h"

#define CLUES_PER_WORD 8u
#define CLUE_LSBS 0x11111111u   /* the lowest bit of each code of a word */

_Static_assert(PROTO_SOLVE_CLUES_BITS == 4u, "eight codes a word");
_Static_assert(PROTO_CLUE_BLANK == 0xFu, "a blank is the code whose four bits are set");

/* The bits of the word's codes that are cells of a `cells`-cell grid (all 8 but in the
   last word). */
static inline uint32_t clue_cells(uint32_t k, uint32_t cells)
{
    uint32_t n = cells - CLUES_PER_WORD * k;
    return n >= CLUES_PER_WORD ? CLUE_LSBS : CLUE_LSBS & ((1u << (4u * n)) - 1u);
}

/* Codes with bit 2 or 3 set: beyond 0..3. */
static inline uint32_t clue_high(uint32_t word) { return ((word >> 2) | (word >> 3)) & CLUE_LSBS; }

/* Blank codes (PROTO_CLUE_BLANK). */
static inline uint32_t clue_blanks(uint32_t word)
{
    return word & (word >> 1) & (word >> 2) & (word >> 3) & CLUE_LSBS;
}

/* Codes that are neither a clue 0..3 nor a blank (bit 2 or 3 set, not all four), at each
   code's lowest bit; the word's other bits mean nothing (clue_bad masks them), so that
   words are OR-ed together as they are. */
static inline uint32_t clue_bad_any(uint32_t word)
{
    uint32_t half = word >> 1;
    uint32_t pairs = word & half;         /* at a code's bit 0: bits 0 and 1; bit 2: 2 and 3 */
    uint32_t high = (word | half) >> 2;   /* at a code's bit 0: bit 2 or 3 */
    return high & ~(pairs & (pairs >> 2));
}

/* Codes that are neither a clue 0..3 nor a blank: refused (ERR_BAD_CLUE). */
static inline uint32_t clue_bad(uint32_t word) { return clue_bad_any(word) & CLUE_LSBS; }

/* Codes that are a clue 1, 2 or 3 (of validated codes: the island rule's clues). */
static inline uint32_t clue_numbered(uint32_t word)
{
    return (word | (word >> 1)) & ~clue_high(word) & CLUE_LSBS;
}

/* A word whose codes are `code` where `bits` has their lowest bit, else 0 (code a constant:
   no multiplication on RV32I). */
static inline uint32_t clue_spread(uint32_t bits, uint32_t code)
{
    return ((code & 1u) ? bits : 0) | ((code & 2u) ? bits << 1 : 0)
           | ((code & 4u) ? bits << 2 : 0) | ((code & 8u) ? bits << 3 : 0);
}

/* The cell (0 .. 7) of the word's first bit set in `bits` (nonzero). */
static inline uint32_t clue_first(uint32_t bits)
{
    uint32_t j = 0;
    while (!(bits & 1u)) {
        bits >>= 4;
        j++;
    }
    return j;
}

/* The cell (0 .. 7) of the word's last bit set in `bits` (nonzero). */
static inline uint32_t clue_last(uint32_t bits)
{
    uint32_t j = CLUES_PER_WORD - 1u;
    while (!(bits >> (4u * j)))
        j--;
    return j;
}

#endif
