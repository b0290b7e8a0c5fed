/* The deduce-mode search: model/deduce.py solve(), step for step (docs/deduce.md section 5).
 *
 * The deduction engine does the work: DEDUCE propagates and probes to a fixpoint,
 * DECIDE picks the branch cell (the one the last deduction's probes scored best),
 * pushes the state on the hardware trail, sets the cell IN and deduces, BACKTRACK
 * pops the trail, sets the cell OUT and deduces.  The firmware only chooses between
 * them from STATUS, exactly in solve()'s order, so the engine's counters equal the
 * model's.  While a command runs the firmware keeps the UART served
 * (serve_while_searching); an ABORT ends the search after the running command.
 */
#include "deduce.h"
#include "io.h"
#include "clues.h"
#include "proto.h"
#include "serve.h"

#define DED(offset) REG(SLK_DEDUCE_BASE + (offset))

static uint32_t puzzle_rows, puzzle_cols;

uint32_t deduce_id(void) { return DED(SLK_DEDUCE_ID); }

int deduce_ok(void)
{
    uint32_t want_id = (SLK_DEDUCE_ID_MAGIC << SLK_DEDUCE_ID_MAGIC_SHIFT)
                     | (SLK_DEDUCE_REGMAP_VERSION << SLK_DEDUCE_ID_VERSION_SHIFT);
    uint32_t want_config = (SLK_MAX_ROWS << SLK_DEDUCE_CONFIG_MAX_ROWS_SHIFT)
                         | (SLK_MAX_COLS << SLK_DEDUCE_CONFIG_MAX_COLS_SHIFT);
    uint32_t size_mask = SLK_DEDUCE_CONFIG_MAX_ROWS_MASK | SLK_DEDUCE_CONFIG_MAX_COLS_MASK;
    return DED(SLK_DEDUCE_ID) == want_id && (DED(SLK_DEDUCE_CONFIG) & size_mask) == want_config;
}

_Static_assert(SLK_DEDUCE_STREAM_CELLS == CLUES_PER_WORD, "a DEDUCE_CLUES write is a word of codes");
_Static_assert(PROTO_CLUE_BLANK > 3u, "the engine takes the protocol's blank as it is");

/* The clue words from `word` up to `end` (DEDUCE_CLUES: eight codes a write; codes past the
   grid are ignored), at least one.  A leaf. */
static __attribute__((noinline)) void load_clues(const uint32_t *word, const uint32_t *end)
{
    if ((end - word) & 1)
        DED(SLK_DEDUCE_CLUES) = *word++;
    for (; word != end; word += 2) {   /* two a step */
        DED(SLK_DEDUCE_CLUES) = word[0];
        DED(SLK_DEDUCE_CLUES) = word[1];
    }
}

/* SIZE (it starts the engine's clue stream), the clue words as the SOLVE carries them
   (DEDUCE_CLUES: eight codes a write, row-major), then LOAD. */
void deduce_load(uint32_t rows, uint32_t cols, uint32_t cells, uint32_t island,
                 const uint8_t *payload)
{
    DED(SLK_DEDUCE_SIZE) = (rows << SLK_DEDUCE_SIZE_ROWS_SHIFT)
                         | (cols << SLK_DEDUCE_SIZE_COLS_SHIFT)
                         | (island << SLK_DEDUCE_SIZE_ISLAND_SHIFT);
    const uint32_t *word = solve_clue_words(payload);
    const uint32_t *end = word + (cells + CLUES_PER_WORD - 1u) / CLUES_PER_WORD;
    load_clues(word, end);
    DED(SLK_DEDUCE_CONTROL) = SLK_DEDUCE_CONTROL_LOAD_MASK;
    puzzle_rows = rows;
    puzzle_cols = cols;
}

/* STATUS polls between two services of the UART while the engine runs: a poll is some 20
   to 30 cycles, so the requests behind are served every 2k cycles or so (the next SOLVE
   received, checked and queued while the engine solves this one); the UART's ring takes
   their bytes meanwhile. */
#define POLLS_PER_SERVE 64u
/* Cycles after which a command is not started before the UART is served: a search of many
   short commands (each fewer than POLLS_PER_SERVE polls) serves it that often too. */
#define SERVE_CYCLES 2048u

static uint32_t served_at;   /* the cycle counter's low word when the UART was last served */

/* Serve the UART (the requests received meanwhile); `abort` set when an ABORT came. */
static void serve_uart(int *abort)
{
    served_at = cycles_lo();
    if (!*abort && serve_while_searching())
        *abort = 1;
}

/* Wait for the running command to end and return STATUS after it; serve the UART first
   when SERVE_CYCLES have passed since it was last served, and every POLLS_PER_SERVE
   polls of STATUS while the command runs. */
static inline HOT_PATH uint32_t wait(uint32_t status, int *abort)
{
    if (cycles_lo() - served_at >= SERVE_CYCLES)
        serve_uart(abort);
    for (uint32_t i = 1; status & SLK_DEDUCE_STATUS_BUSY_MASK; i++) {
        if ((i & (POLLS_PER_SERVE - 1u)) == 0)
            serve_uart(abort);
        status = DED(SLK_DEDUCE_STATUS);
    }
    return status;
}

/* Run one command; returns STATUS after it (see wait). */
static inline HOT_PATH uint32_t run(uint32_t command, int *abort)
{
    DED(SLK_DEDUCE_CONTROL) = command;
    return wait(DED(SLK_DEDUCE_STATUS), abort);
}

/* The first solution stays in the engine's state registers until a command would
   change them: then (and only then) it is copied into RAM, as the engine's row words
   (packing them into the reply's order is left to the reply).  A search that ends with
   it still in the engine (every search without a branch) has deduce_colouring pack it
   from the engine's DEDUCE_ROW registers, with the reply: the answer is ready, in
   hardware. */
static int solution_in_engine;

_Static_assert(SLK_DEDUCE_ROW_WORDS == 2u, "a row is two DEDUCE_ROW words");
_Static_assert(SLK_DEDUCE_ROW_ADDR(1, 0) - SLK_DEDUCE_ROW_ADDR(0, 0) == 4u * SLK_DEDUCE_ROW_WORDS,
               "the engine's rows are laid out like deduce_result_t's inside[]");

static void save_solution(deduce_result_t *result)
{
    for (uint32_t r = 0; r < puzzle_rows; r++) {
        result->inside[r][0] = DED(SLK_DEDUCE_ROW_ADDR(r, 0));
        if (puzzle_cols > SLK_DEDUCE_ROW_CELLS)
            result->inside[r][1] = DED(SLK_DEDUCE_ROW_ADDR(r, 1));
    }
}

/* Colouring chunks: at most 16 cells, so that one never spans two DEDUCE_ROW words and
   fits beside the fewer than 8 bits waiting for a byte. */
#define CHUNK 16u
_Static_assert(SLK_DEDUCE_ROW_CELLS % CHUNK == 0, "a chunk within a row word");

/* Row r's DEDUCE_ROW word `half`: from the engine, or the copy saved from it. */
static inline uint32_t row_word(const deduce_result_t *result, int in_engine, uint32_t r,
                                uint32_t half)
{
    return in_engine ? DED(SLK_DEDUCE_ROW_ADDR(r, half)) : result->inside[r][half];
}

/* The colouring of the first solution: cols bits a row, row-major, into bytes LSB first.
   Rows at most SHORT_ROW cells wide go in whole, a word store each time 32 bits are
   waiting (pack_rows); wider rows in chunks of CHUNK cells, a byte store each time 8 are
   (pack_wide_rows). */
#define SHORT_ROW (32u - 7u)

/* Bits waiting (have of them, at acc's low end) before the word at o. */
typedef struct {
    uint32_t acc, have;
    uint32_t *o;
} packer_t;

/* Append `width` bits (at most 32, nothing above them) behind the bits waiting, storing the
   word they fill (and sending it: `send`). */
static inline __attribute__((always_inline)) void pack_bits(uint32_t *acc, uint32_t *have,
                                                            uint32_t **o, uint32_t bits,
                                                            uint32_t width, int send)
{
    *acc |= bits << *have;   /* have < 32 */
    *have += width;
    if (*have >= 32u) {      /* a word full: the bits past it begin the next */
        if (send)
            send_stream_word(*acc);
        *(*o)++ = *acc;
        *have -= 32u;
        *acc = *have ? bits >> (width - *have) : 0;   /* by 32 - (have before) */
    }
}

/* Pack the rows from `row` up to `end` (DEDUCE_ROW words, cols <= SHORT_ROW cells each, the
   cells past cols 0) behind the bits waiting, storing each word filled; rows of at most 16
   cells two at a time (inlined: the packer stays in registers). */
static inline __attribute__((always_inline)) void pack_rows(packer_t *k, const volatile uint32_t *row,
                                                const volatile uint32_t *end, uint32_t cols,
                                                int send)
{
    uint32_t acc = k->acc, have = k->have, *o = k->o;
    if (cols <= 16u) {
        const uint32_t pair = 2u * SLK_DEDUCE_ROW_WORDS;
        for (; end - row >= (int)pair; row += pair)
            pack_bits(&acc, &have, &o, row[0] | (row[SLK_DEDUCE_ROW_WORDS] << cols), 2u * cols,
                      send);
    }
    for (; row != end; row += SLK_DEDUCE_ROW_WORDS)
        pack_bits(&acc, &have, &o, *row, cols, send);
    k->acc = acc;
    k->have = have;
    k->o = o;
}

/* The colouring of rows wider than SHORT_ROW into out: the bytes written; the last bits
   (fewer than 8) are left in the packer. */
static __attribute__((noinline)) uint32_t pack_wide_rows(packer_t *k, deduce_result_t *result,
                                                        int in_engine, uint8_t *out)
{
    uint32_t acc = 0, have = 0, bytes = 0;
    for (uint32_t r = 0; r < puzzle_rows; r++) {
        for (uint32_t c = 0; c < puzzle_cols; c += CHUNK) {
            uint32_t take = puzzle_cols - c < CHUNK ? puzzle_cols - c : CHUNK;
            uint32_t word = row_word(result, in_engine, r, c / SLK_DEDUCE_ROW_CELLS);
            acc |= ((word >> (c % SLK_DEDUCE_ROW_CELLS)) & ((1u << take) - 1u)) << have;
            for (have += take; have >= 8u; have -= 8u) {
                out[bytes++] = (uint8_t)acc;
                acc >>= 8;
            }
        }
    }
    k->acc = acc;
    k->have = have;
    return bytes;
}

uint32_t deduce_colouring(deduce_result_t *result, uint8_t *out, int send)
{
    int in_engine = solution_in_engine;      /* the row words read from the engine, once */
    solution_in_engine = 0;
    packer_t k;
    uint32_t bytes;
    if (puzzle_cols <= SHORT_ROW) {   /* the rows' first words, as the engine lays them out */
        const volatile uint32_t *row = in_engine
            ? (const volatile uint32_t *)(uintptr_t)(SLK_DEDUCE_BASE + SLK_DEDUCE_ROW_ADDR(0, 0))
            : result->inside[0];
        const volatile uint32_t *last = row + SLK_DEDUCE_ROW_WORDS * puzzle_rows;
        /* whole words stored from the word that holds out[0], its bytes before out kept */
        uint32_t lead = (uint32_t)(uintptr_t)out & 3u;
        uint32_t *first = (uint32_t *)(uintptr_t)(out - lead);
        k.have = 8u * lead;
        k.acc = lead ? *first & ((1u << k.have) - 1u) : 0;
        k.o = first;
        pack_rows(&k, row, last, puzzle_cols, send);
        /* the bits left (fewer than 32) in one more word: the colouring ends the payload, and
           the bytes past it are the frame CRC's, put there as the frame is sent */
        if (k.have)
            *k.o = k.acc;
        return 4u * (uint32_t)(k.o - first) + (k.have + 7u) / 8u - lead;
    } else {
        bytes = pack_wide_rows(&k, result, in_engine, out);
    }
    for (; k.have; k.have = k.have > 8u ? k.have - 8u : 0, k.acc >>= 8)   /* the bits left */
        out[bytes++] = (uint8_t)k.acc;
    return bytes;
}

void deduce_counters(deduce_result_t *result)
{
    for (uint32_t k = 0; k < SLK_DEDUCE_COUNTERS; k++)
        result->counters[k] = DED(SLK_DEDUCE_COUNTER_BASE + 4u * k);
}

/* The search from the first DEDUCE's STATUS on (busy: still running), model/deduce.py
   solve()'s loop; `abort`: an ABORT came while the first DEDUCE ran.  Not inlined:
   deduce_run's short path then needs no registers saved. */
static __attribute__((noinline)) void deduce_search(uint32_t status, uint32_t max_solutions,
                                                    uint32_t decision_limit, uint64_t start,
                                                    int abort, deduce_result_t *result)
{
    uint32_t found = 0, decisions = 0;
    status = wait(status, &abort);
    while (!abort) {
        int bad = (status & SLK_DEDUCE_STATUS_CONFLICT_MASK) != 0;
        if (!bad && (status & SLK_DEDUCE_STATUS_COMPLETE_MASK)) {
            if (found == 0)
                solution_in_engine = 1;
            if (++found >= max_solutions)
                break;
            bad = 1;  /* look for another */
        }
        if (bad) {
            if (status & SLK_DEDUCE_STATUS_TRAIL_EMPTY_MASK) {
                result->exhausted = 1;
                break;
            }
            if (solution_in_engine) {   /* BACKTRACK overwrites it */
                save_solution(result);
                solution_in_engine = 0;
            }
            status = run(SLK_DEDUCE_CONTROL_BACKTRACK_MASK, &abort);
            continue;
        }
        if (decisions >= decision_limit)
            break;
        if (status & SLK_DEDUCE_STATUS_TRAIL_FULL_MASK) {
            result->trail_full = 1;
            break;
        }
        decisions++;
        status = run(SLK_DEDUCE_CONTROL_DECIDE_MASK, &abort);
    }
    result->cycles = cycles64() - start;   /* "answer ready": the search has ended */
    result->found = found;
    result->solutions = found;
    result->aborted = abort;
}

/* STATUS bits of the short path's test; they are the register's low four bits. */
#define SETTLE_BITS (SLK_DEDUCE_STATUS_BUSY_MASK | SLK_DEDUCE_STATUS_CONFLICT_MASK \
                     | SLK_DEDUCE_STATUS_COMPLETE_MASK | SLK_DEDUCE_STATUS_TRAIL_EMPTY_MASK)
_Static_assert(SETTLE_BITS == 15u, "the short path indexes a 16-bit set by STATUS & 15");

/* 1 when a first DEDUCE that ends with this STATUS ends the search (max_solutions asked
   for): a conflict, or a complete state, with the solutions asked for or nothing to
   backtrack to -- exactly where deduce_search() would stop. */
static inline uint32_t settles(uint32_t status, uint32_t max_solutions)
{
    uint32_t ended = SLK_DEDUCE_STATUS_CONFLICT_MASK | SLK_DEDUCE_STATUS_COMPLETE_MASK;
    uint32_t found = (status & (SLK_DEDUCE_STATUS_BUSY_MASK | ended))
                     == SLK_DEDUCE_STATUS_COMPLETE_MASK;   /* a solution */
    return !(status & SLK_DEDUCE_STATUS_BUSY_MASK) && (status & ended)
           && (found >= max_solutions || (status & SLK_DEDUCE_STATUS_TRAIL_EMPTY_MASK));
}

/* The set of the STATUS values (& 15) that settle the search: bit s for STATUS s. */
static inline uint32_t settling(uint32_t max_solutions)
{
    uint32_t set = 0;
    for (uint32_t status = 0; status < 16u; status++)
        set |= settles(status, max_solutions) << status;
    return set;
}

/* deduce_run() from the serve on: POLLS_PER_SERVE polls of STATUS at most, then the short
   path's answer or deduce_search().  Not inlined: a leaf but for its tail calls, while
   deduce_run() keeps only its arguments over the serve (result->cycles holds the start). */
static __attribute__((noinline)) void deduce_settle(uint32_t max_solutions,
                                                    uint32_t decision_limit, int abort,
                                                    deduce_result_t *result)
{
    uint32_t status = DED(SLK_DEDUCE_STATUS);
    for (uint32_t i = 1; i < POLLS_PER_SERVE && (status & SLK_DEDUCE_STATUS_BUSY_MASK); i++)
        status = DED(SLK_DEDUCE_STATUS);
    uint32_t settle = max_solutions > 1u ? settling(2u) : settling(1u);
    if (abort || !((settle >> (status & SETTLE_BITS)) & 1u)) {
        deduce_search(status, max_solutions, decision_limit, result->cycles, abort, result);
        return;
    }
    result->cycles = cycles64() - result->cycles;    /* "answer ready" */
    uint32_t found = (status & SLK_DEDUCE_STATUS_CONFLICT_MASK) == 0;
    solution_in_engine = found;
    result->exhausted = found < max_solutions;
    result->found = found;
    result->solutions = found;
}

/* The short path is the whole search of a puzzle that deduction alone settles (most of
   them: docs/deduce.md section 9): a DEDUCE that ends within POLLS_PER_SERVE polls after
   the serve below with a conflict, or complete with the solutions asked for or nothing to
   backtrack to, is answered here, exactly as deduce_search() would, without its register
   saves (about 150 cycles of a 10x10's answer,
   docs/decisions/2026-11-24-firmware-short-path.md).  Everything else goes on in
   deduce_search(), which serves the UART as it polls (wait).

   While the first DEDUCE runs the firmware serves the requests that arrived behind this
   one (serve_while_searching: the next SOLVE is received, validated and queued while the
   engine works; an ABORT among them ends the search after this DEDUCE).

   The solve's cycles (result->cycles) run from "puzzle loaded" (the clues written and
   LOAD issued; the DEDUCE write waits for LOAD to end) to "answer ready" (the firmware
   knows that the search has ended; with requests waiting, after serving them).  The
   DEDUCE command is the first thing done, the result's bookkeeping is done while the
   engine runs, and the test that ends the search here is one lookup in a set made before
   (docs/deduce.md section 9). */
void deduce_run(uint32_t max_solutions, uint32_t decision_limit, deduce_result_t *result)
{
    uint32_t start_lo = cycles_lo();                  /* latches the high word */
    DED(SLK_DEDUCE_CONTROL) = SLK_DEDUCE_CONTROL_DEDUCE_MASK;
    result->cycles = cycles_latched(start_lo);        /* the start, until "answer ready" */
    solution_in_engine = 0;
    result->exhausted = 0;
    result->trail_full = 0;
    result->aborted = 0;
    __asm__ volatile("" ::: "memory");   /* those stores while the engine runs */
    serve_flush();                        /* the reply before, meanwhile */
    serve_ahead();                        /* or this one's header, when it is alone */
    int abort = 0;
    serve_uart(&abort);                   /* the requests behind this one, meanwhile */
    deduce_settle(max_solutions, decision_limit, abort, result);
}
