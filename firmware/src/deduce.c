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

static uint32_t puzzle_cells;   /* the loaded puzzle's */

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
    puzzle_cells = cells;
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

/* The first solution stays in the engine's state until a command would change it: then
   (and only then) its colouring is copied into RAM.  Either way the engine's colouring
   packer makes it: started as soon as the search ends with the solution in the engine (or
   before the command that would change it), it gives the replies' colouring a word a read
   (DEDUCE_COLOURING), while the reply is begun. */
static int solution_in_engine;

/* A reply's frame starts a word (serve.c's store), so its colouring starts at a known bit of
   a word: the packer starts every colouring with as many zero bits (no call: deduce_settle
   stays a leaf). */
#define REPLY_SKIP (8u * ((PROTO_FRAME_SIZE + PROTO_ANSWER_COLOURING_OFFSET) % 4u))
_Static_assert(PROTO_ANSWER_COLOURING_OFFSET % 4u == PROTO_DEDUCE_RESULT_COLOURING_OFFSET % 4u,
               "an ANSWER's and a DEDUCE_RESULT's colouring start at the same bit of a word");
_Static_assert(sizeof(((deduce_result_t *)0)->colouring) / 4u
               > (REPLY_SKIP + SLK_MAX_ROWS * SLK_MAX_COLS) / 32u,
               "the saved colouring holds the largest grid's, and the word read after it");

/* Start the packer on the solution in the engine. */
static inline void packer_start(void)
{
    DED(SLK_DEDUCE_COLOURING_START) = REPLY_SKIP << SLK_DEDUCE_COLOURING_START_SKIP_SHIFT;
}

/* The words of the solution in the engine into RAM, before a command changes it. */
static void save_solution(deduce_result_t *result)
{
    packer_start();
    uint32_t *o = result->colouring, *end = o + (REPLY_SKIP + puzzle_cells + 31u) / 32u;
    for (; o != end; o++)
        *o = DED(SLK_DEDUCE_COLOURING);
}

uint32_t deduce_colouring(deduce_result_t *result, uint8_t *out, uint32_t cells, int send)
{
    /* the words: the packer's (its one register, read again and again) or the saved ones */
    const volatile uint32_t *from = solution_in_engine
        ? (const volatile uint32_t *)(uintptr_t)(SLK_DEDUCE_BASE + SLK_DEDUCE_COLOURING)
        : result->colouring;
    uint32_t step = solution_in_engine ? 0u : 1u;
    solution_in_engine = 0;
    /* whole words stored from the one that holds out[0], its bytes before out kept */
    uint32_t *o = (uint32_t *)(uintptr_t)(out - REPLY_SKIP / 8u);
    uint32_t bits = REPLY_SKIP + cells;
    uint32_t word = *from | (REPLY_SKIP ? *o & ((1u << REPLY_SKIP) - 1u) : 0u);
    for (uint32_t *full_end = o + bits / 32u; o != full_end; o++) {
        if (send)
            send_stream_word(word);
        *o = word;
        from += step;
        word = *from;
    }
    if (bits % 32u)   /* the last word, not full: the bytes past the colouring are the CRC's */
        *o = word;
    return PROTO_ANSWER_COLOURING_BYTES(cells);
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
    if (solution_in_engine)
        packer_start();
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
    if (found)   /* the packer works while the reply is begun */
        packer_start();
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
