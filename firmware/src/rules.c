/* Rules the firmware shares with spec/ (see rules.h). */
#include "rules.h"
#include "slk_protocol.h"
#include "arith.h"
#include "clues.h"

/* The row (in *row) and column (returned) of cell i. */
static uint32_t cell_place(uint32_t i, uint32_t cols, uint32_t *row)
{
    uint32_t r = 0;
    while (i >= cols) {
        i -= cols;
        r++;
    }
    *row = r;
    return i;
}

/* The box of the clues 1..3: its rows from the first and the last of them (a few words of
   codes read, eight cells a word); its columns only when it is at most four rows high (else
   it is island free whatever they are). */
int island_free(uint32_t rows, uint32_t cols, const uint8_t *codes)
{
    uint32_t cells = mul_small(rows, cols), bytes = PROTO_SOLVE_CLUES_BYTES(cells);
    uint32_t words = (cells + CLUES_PER_WORD - 1u) / CLUES_PER_WORD;
    uint32_t first = cells, last = 0;
    for (uint32_t k = 0; k < words; k++) {
        uint32_t bits = clue_numbered(clue_word(codes, k, bytes)) & clue_cells(k, cells);
        if (bits) {
            first = CLUES_PER_WORD * k + clue_first(bits);
            break;
        }
    }
    if (first == cells)
        return 0;   /* no clue 1..3: a 1x2 loop may be the whole solution */
    for (uint32_t k = words; k-- > 0;) {
        uint32_t bits = clue_numbered(clue_word(codes, k, bytes)) & clue_cells(k, cells);
        if (bits) {
            last = CLUES_PER_WORD * k + clue_last(bits);
            break;
        }
    }
    uint32_t r0, h;
    uint32_t c_first = cell_place(first, cols, &r0);
    uint32_t from = first - c_first;   /* the first cell of the box's first row */
    if (last - from >= cols << 2)
        return 1;                      /* more than four rows high */
    uint32_t c_last = cell_place(last - from, cols, &h);
    h++;
    uint32_t c0 = cols, c1 = 0, c = 0;
    for (uint32_t i = first - c_first; i <= last + (cols - 1u - c_last); i++) {
        uint32_t code = PROTO_GET_SOLVE_CLUES(codes, i);
        if (code - 1u < 3u) {
            if (c < c0) c0 = c;
            if (c > c1) c1 = c;
        }
        if (++c == cols)
            c = 0;
    }
    uint32_t w = c1 - c0 + 1;
    return !((h <= 3 && w <= 4) || (h <= 4 && w <= 3));
}

uint32_t solve_status(uint32_t found, uint32_t exhausted, uint32_t unique)
{
    return PROTO_STATUS_OF(found, exhausted, unique);
}
