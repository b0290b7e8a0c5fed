/* Rules the firmware shares with spec/ (see rules.h). */
#include "rules.h"
#include "slk_protocol.h"
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

/* The clues 1..3 of clue word k of `cells` cells' words (clue_numbered), only the grid's
   cells of the last one (`last`: the index of the last). */
static inline uint32_t numbered_in(const uint32_t *words, uint32_t k, uint32_t last,
                                   uint32_t cells)
{
    uint32_t bits = clue_numbered(words[k]);
    return k == last ? bits & clue_cells(k, cells) : bits;
}

/* Whether clue words `words_between` apart hold cells four rows apart or more, whatever
   their cells in them (the first is at most cell 8k + 7, the last at least cell 8j): no box of
   four rows holds both. */
static inline int words_apart(uint32_t words_between, uint32_t cols)
{
    return CLUES_PER_WORD * words_between >= (cols << 2) + (CLUES_PER_WORD - 1u);
}

/* The box of the clues 1..3: its rows from the first and the last of them, found a clue word
   at a time from either end; when their words alone put them more than four rows apart, that
   is the answer; else their exact cells, and the box's columns when it is at most four rows
   high (else it is island free whatever they are). */
int island_free(uint32_t cols, uint32_t cells, const uint32_t *words)
{
    uint32_t last_word = (cells - 1u) / CLUES_PER_WORD, k = 0, j = last_word, bits, last_bits;
    /* the usual grid: clues 1..3 in its first and last words, far apart (k = 0 and
       j = last_word below), without the searches */
    if (words_apart(last_word, cols) && clue_numbered(words[0])
        && numbered_in(words, last_word, last_word, cells))
        return 1;
    while (!(bits = numbered_in(words, k, last_word, cells)))
        if (++k > last_word)
            return 0;   /* no clue 1..3: a 1x2 loop may be the whole solution */
    while (!(last_bits = numbered_in(words, j, last_word, cells)))
        j--;            /* word k has one: it stops there at the latest */
    if (words_apart(j - k, cols))
        return 1;
    uint32_t first = CLUES_PER_WORD * k + clue_first(bits);
    uint32_t last = CLUES_PER_WORD * j + clue_last(last_bits);
    uint32_t r0, h;
    uint32_t c_first = cell_place(first, cols, &r0);
    uint32_t from = first - c_first;   /* the first cell of the box's first row */
    if (last - from >= cols << 2)
        return 1;                      /* more than four rows high */
    uint32_t c_last = cell_place(last - from, cols, &h);
    h++;
    uint32_t c0 = cols, c1 = 0, c = 0;
    for (uint32_t i = from; i <= last + (cols - 1u - c_last); i++) {
        uint32_t code = (words[i / CLUES_PER_WORD] >> (PROTO_SOLVE_CLUES_BITS * (i % CLUES_PER_WORD)))
                        & PROTO_CLUE_BLANK;
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
