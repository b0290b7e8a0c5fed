/* The paper-faithful search (paper section 3.1, Figs. 8-10) on the accelerator.
 *
 * This is model/paper.py search(), step for step, with the same counters:
 * levels are the clue cells in row-major order, then (once every clue cell is
 * assigned) the undetermined cells in row-major order (the "disconnected
 * procedure", section 3.1.4); a clue level tries its combinations in
 * spec/combinations.py order, an undetermined cell OUTSIDE then INSIDE.  Each
 * option is one CELL write and one STATUS read (one check); an undetermined
 * cell's option also runs the REACH and then the ESCAPE flood.  A candidate
 * (every level assigned) is accepted when it has an inside cell, the REACH
 * flood completes and Pick's theorem holds.
 *
 * The accelerator holds the state: a level's cell keeps its current option
 * until the next option overwrites it, and is unassigned when the level runs
 * out of options, so the checker always sees exactly the model's s0/s1.
 */
#include "search.h"
#include "io.h"
#include "proto.h"
#include "serve.h"
#include "slk_options.h"

#define MAX_CELLS (SLK_MAX_ROWS * SLK_MAX_COLS)

typedef struct {
    volatile uint32_t *cell;   /* the CELL register */
    const uint32_t *first;     /* CELL words of the options, in search order */
    const uint32_t *end;       /* one past the last option */
    const uint32_t *current;   /* the option assigned now (kept while deeper levels run) */
    uint32_t unassigned;       /* CELL word with the clue and no attribute */
} level_t;

static level_t levels[MAX_CELLS + 1];  /* + 1: "one past the last level" is read harmlessly */
static uint32_t clue_levels, puzzle_rows, puzzle_cols;
/* The option words of slk_options.h, copied into RAM beside the other search state:
   the compiler then reaches them from the same base register as the levels, which
   keeps the search's code (and its cycle counts) as measured in docs/soc-cycles.md. */
static uint32_t option_words[SLK_OPTION_KINDS][SLK_OPTIONS_MAX];
static uint32_t option_counts[SLK_OPTION_KINDS];

static volatile uint32_t *cell_reg(uint32_t r, uint32_t c)
{
    return (volatile uint32_t *)(uintptr_t)(SLK_BASE + SLK_CELL_ADDR(r, c));
}

static void init_options(void)
{
    for (uint32_t k = 0; k < SLK_OPTION_KINDS; k++) {
        option_counts[k] = slk_option_counts[k];
        for (uint32_t i = 0; i < SLK_OPTIONS_MAX; i++)
            option_words[k][i] = slk_option_words[k][i];
    }
}

uint32_t accelerator_id(void) { return ACC(SLK_ID); }

int accelerator_ok(void)
{
    uint32_t id = ACC(SLK_ID), config = ACC(SLK_CONFIG);
    uint32_t want_id = (SLK_ID_MAGIC << SLK_ID_MAGIC_SHIFT) | (SLK_REGMAP_VERSION << SLK_ID_VERSION_SHIFT);
    uint32_t want_config = (SLK_MAX_ROWS << SLK_CONFIG_MAX_ROWS_SHIFT)
                         | (SLK_MAX_COLS << SLK_CONFIG_MAX_COLS_SHIFT);
    return id == want_id && (config & (SLK_CONFIG_MAX_ROWS_MASK | SLK_CONFIG_MAX_COLS_MASK)) == want_config;
}

void search_load(uint32_t rows, uint32_t cols, const uint8_t *codes)
{
    static int initialised;
    if (!initialised) {
        init_options();
        initialised = 1;
    }
    ACC(SLK_SIZE) = (rows << SLK_SIZE_ROWS_SHIFT) | (cols << SLK_SIZE_COLS_SHIFT);
    ACC(SLK_CONTROL) = SLK_CONTROL_CLEAR_MASK;
    puzzle_rows = rows;
    puzzle_cols = cols;
    uint32_t n = 0, i = 0;
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t c = 0; c < cols; c++, i++) {
            uint32_t code = PROTO_GET_SOLVE_CLUES(codes, i);
            if (code == PROTO_CLUE_BLANK)
                continue;
            level_t *level = &levels[n++];
            level->cell = cell_reg(r, c);
            level->unassigned = code << SLK_CELL_CLUE_SHIFT;
            level->first = option_words[code];   /* the digit is the option kind */
            level->end = option_words[code] + option_counts[code];
            *level->cell = level->unassigned;
        }
    }
    clue_levels = n;
}

/* Levels for the cells that are neither required inside nor outside (section 3.1.4);
   returns one past the last level. */
static level_t *enter_completion(void)
{
    level_t *level = &levels[clue_levels];
    for (uint32_t r = 0; r < puzzle_rows; r++) {
        for (uint32_t c = 0; c < puzzle_cols; c++) {
            volatile uint32_t *cell = cell_reg(r, c);
            if (*cell & (SLK_CELL_S0_MASK | SLK_CELL_S1_MASK))
                continue;
            level->cell = cell;
            level->unassigned = SLK_CLUE_BLANK << SLK_CELL_CLUE_SHIFT;
            level->first = option_words[SLK_OPTION_BLANK];
            level->end = option_words[SLK_OPTION_BLANK] + SLK_OPTION_BLANK_COUNT;
            level++;
        }
    }
    return level;
}

static void save_solution(uint8_t *out)
{
    uint32_t i = 0;
    for (uint32_t b = 0; b < sizeof(((search_result_t *)0)->solution); b++)
        out[b] = 0;
    for (uint32_t r = 0; r < puzzle_rows; r++)
        for (uint32_t c = 0; c < puzzle_cols; c++, i++)
            if (*cell_reg(r, c) & SLK_CELL_S1_MASK)
                PROTO_SET_RESULT_COLOURING(out, i);
}

#define STATUS_FAIL (SLK_STATUS_CONFLICT_MASK | SLK_STATUS_CHECKERBOARD_MASK)
#define FLOOD_WORD(mode) (SLK_CONTROL_FLOOD_MASK | ((mode) << SLK_CONTROL_FLOOD_MODE_SHIFT))

/* Counters off the hot path live in memory, so the check loop keeps its registers. */
static counters_t count;

/* One run of the flood array (section 3.3.1); returns its flood_complete bit. */
static __attribute__((noinline)) uint32_t flood(uint32_t mode)
{
    uint32_t st;
    ACC(SLK_CONTROL) = FLOOD_WORD(mode);
    do
        st = ACC(SLK_STATUS);
    while (st & SLK_STATUS_FLOOD_BUSY_MASK);
    count.floods += 1;
    count.flood_iterations += ACC(SLK_FLOOD_ITERATIONS);
    return st & SLK_STATUS_FLOOD_COMPLETE_MASK;
}

__attribute__((noinline)) void search_run(uint32_t max_solutions, uint32_t check_limit,
                                          search_result_t *result)
{
    uint32_t checks = 0, found = 0;
    int exhausted = 0, aborted = 0;
    level_t *const first = levels;
    level_t *const clue_end = levels + clue_levels;
    level_t *end = clue_end;
    /* the next check count at which to poll the UART or stop at the limit:
       polls at every multiple of SEARCH_POLL_MASK + 1 (0 included) */
    uint32_t next_event = 0;

    count.backtracks = count.candidates = 0;
    count.floods = count.flood_iterations = 0;
    if (clue_end == first)
        end = enter_completion();

    /* the level being assigned, cached: its CELL register, its options */
    level_t *level = first;
    volatile uint32_t *cell = level->cell;
    const uint32_t *option = level->first, *options_end = level->end;
    for (;;) {
        /* try the level's options from `option` on; stop at the first that passes */
        for (; option != options_end; option++) {
            if (checks == next_event) {
                if ((checks & SEARCH_POLL_MASK) == 0 && serve_while_searching()) {
                    aborted = 1;
                    goto done;
                }
                if (checks >= check_limit)
                    goto done;
                next_event = (checks + SEARCH_POLL_MASK + 1) & ~SEARCH_POLL_MASK;
                if (next_event > check_limit || next_event == 0)
                    next_event = check_limit;
            }
            /* one check: one CELL write, one STATUS read (section 3.3) */
            *cell = *option;
            checks++;
            if (!(ACC(SLK_STATUS) & STATUS_FAIL)
                && (level < clue_end
                    || (flood(SLK_FLOOD_REACH) && flood(SLK_FLOOD_ESCAPE))))
                break;
        }
        if (option == options_end) {
            /* the level ran out of options: backtrack */
            count.backtracks++;
            *cell = level->unassigned;
            if (level == first) {
                exhausted = 1;
                break;
            }
            level--;
            cell = level->cell;
            options_end = level->end;
            option = level->current + 1;
            continue;
        }
        /* the option passed: go one level deeper */
        level->current = option;
        level++;
        if (level == clue_end)
            end = enter_completion();
        if (level == end) {
            /* a candidate: everything is determined (section 3.1.3) */
            count.candidates++;
            uint32_t st = ACC(SLK_STATUS);
            if (!(st & SLK_STATUS_INSIDE_EMPTY_MASK) && flood(SLK_FLOOD_REACH)
                && (st & SLK_STATUS_PICK_OK_MASK)) {
                if (found == 0)
                    save_solution(result->solution);
                if (++found >= max_solutions)
                    break;
            }
            level--;             /* the last level goes on with its next option */
            option++;
            continue;
        }
        cell = level->cell;
        options_end = level->end;
        option = level->first;
    }
done:
    count.checks = checks;
    result->counters = count;
    result->found = found;
    result->exhausted = exhausted;
    result->aborted = aborted;
}
