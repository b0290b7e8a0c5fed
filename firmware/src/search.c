/* The paper-faithful search (paper section 3.1, Figs. 8-10) on the accelerator.
 *
 * This is hw/model.py search(), step for step, with the same counters:
 * levels are the clue cells in row-major order, then (once every clue cell is
 * assigned) the undetermined cells in row-major order (the "disconnected
 * procedure", section 3.1.4); a clue level tries its combinations in
 * hw/combinations.py order, an undetermined cell OUTSIDE then INSIDE.  Each
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
#include "slk_protocol.h"

#define MAX_CELLS (SLK_MAX_ROWS * SLK_MAX_COLS)
#define BLANK_INDEX 4u

typedef struct {
    volatile uint32_t *cell;   /* the CELL register */
    uint32_t unassigned;       /* CELL word with the clue and no attribute */
    const uint32_t *options;   /* CELL words of the options, in search order */
    uint32_t count;            /* number of options */
} level_t;

static level_t levels[MAX_CELLS];
static uint8_t choice[MAX_CELLS + 1];
static uint32_t clue_levels, puzzle_rows, puzzle_cols;
/* CELL words of every option of digits 0..3 and of a blank cell (index 4) */
static uint32_t option_words[5][2 * SLK_MAX_PATTERNS];
static uint32_t option_counts[5];

static volatile uint32_t *cell_reg(uint32_t r, uint32_t c)
{
    return (volatile uint32_t *)(uintptr_t)(SLK_BASE + SLK_CELL_ADDR(r, c));
}

static void init_options(void)
{
    for (uint32_t d = 0; d < 5; d++) {
        uint32_t clue = d == BLANK_INDEX ? SLK_CLUE_BLANK : d;
        uint32_t count = d == BLANK_INDEX ? 2u : slk_combinations[d];
        option_counts[d] = count;
        for (uint32_t i = 0; i < count; i++) {
            /* combination i: pattern i / 2, OUTSIDE when i is even (hw/combinations.py) */
            uint32_t attribute = (i & 1u) ? SLK_ATTR_INSIDE : SLK_ATTR_OUTSIDE;
            option_words[d][i] = (clue << SLK_CELL_CLUE_SHIFT)
                               | ((i >> 1) << SLK_CELL_PATTERN_SHIFT)
                               | (attribute << SLK_CELL_ATTRIBUTE_SHIFT);
        }
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
            uint32_t code = (codes[i >> 1] >> ((i & 1u) << 2)) & 0xFu;
            if (code == PROTO_CLUE_BLANK)
                continue;
            level_t *level = &levels[n++];
            level->cell = cell_reg(r, c);
            level->unassigned = code << SLK_CELL_CLUE_SHIFT;
            level->options = option_words[code];
            level->count = option_counts[code];
            *level->cell = level->unassigned;
        }
    }
    clue_levels = n;
}

/* Levels for the cells that are neither required inside nor outside (section 3.1.4). */
static uint32_t enter_completion(void)
{
    uint32_t n = clue_levels;
    for (uint32_t r = 0; r < puzzle_rows; r++) {
        for (uint32_t c = 0; c < puzzle_cols; c++) {
            volatile uint32_t *cell = cell_reg(r, c);
            if (*cell & (SLK_CELL_S0_MASK | SLK_CELL_S1_MASK))
                continue;
            level_t *level = &levels[n++];
            level->cell = cell;
            level->unassigned = SLK_CLUE_BLANK << SLK_CELL_CLUE_SHIFT;
            level->options = option_words[BLANK_INDEX];
            level->count = 2;
        }
    }
    return n;
}

static void save_solution(uint8_t *out)
{
    uint32_t i = 0;
    for (uint32_t b = 0; b < sizeof(((search_result_t *)0)->solution); b++)
        out[b] = 0;
    for (uint32_t r = 0; r < puzzle_rows; r++)
        for (uint32_t c = 0; c < puzzle_cols; c++, i++)
            if (*cell_reg(r, c) & SLK_CELL_S1_MASK)
                out[i >> 3] |= (uint8_t)(1u << (i & 7u));
}

#define STATUS_FAIL (SLK_STATUS_CONFLICT_MASK | SLK_STATUS_CHECKERBOARD_MASK)
#define FLOOD_WORD(mode) (SLK_CONTROL_FLOOD_MASK | ((mode) << SLK_CONTROL_FLOOD_MODE_SHIFT))

/* One run of the flood array (section 3.3.1); returns its flood_complete bit. */
static inline uint32_t flood(uint32_t mode, uint64_t *floods, uint64_t *iterations)
{
    uint32_t st;
    ACC(SLK_CONTROL) = FLOOD_WORD(mode);
    do
        st = ACC(SLK_STATUS);
    while (st & SLK_STATUS_FLOOD_BUSY_MASK);
    *floods += 1;
    *iterations += ACC(SLK_FLOOD_ITERATIONS);
    return st & SLK_STATUS_FLOOD_COMPLETE_MASK;
}

void search_run(uint32_t max_solutions, uint32_t check_limit, search_result_t *result)
{
    uint32_t checks = 0, backtracks = 0, candidates = 0, found = 0;
    uint64_t floods = 0, flood_iterations = 0;
    uint32_t k = 0, n = clue_levels;
    int exhausted = 0, aborted = 0;

    choice[0] = 0;
    if (clue_levels == 0)
        n = enter_completion();
    for (;;) {
        if (k == n) {
            /* a candidate: everything is determined (section 3.1.3) */
            candidates++;
            uint32_t st = ACC(SLK_STATUS);
            if (!(st & SLK_STATUS_INSIDE_EMPTY_MASK) && flood(SLK_FLOOD_REACH, &floods, &flood_iterations)
                && (st & SLK_STATUS_PICK_OK_MASK)) {
                if (found == 0)
                    save_solution(result->solution);
                if (++found >= max_solutions)
                    break;
            }
            k--;
            choice[k]++;
            continue;
        }
        level_t *level = &levels[k];
        uint32_t c = choice[k];
        if (c == level->count) {
            backtracks++;
            *level->cell = level->unassigned;
            if (k == 0) {
                exhausted = 1;
                break;
            }
            k--;
            choice[k]++;
            continue;
        }
        if ((checks & SEARCH_POLL_MASK) == 0 && search_poll()) {
            aborted = 1;
            break;
        }
        if (checks >= check_limit)
            break;
        *level->cell = level->options[c];
        checks++;
        uint32_t st = ACC(SLK_STATUS);
        int ok = !(st & STATUS_FAIL);
        if (ok && k >= clue_levels)
            ok = flood(SLK_FLOOD_REACH, &floods, &flood_iterations) && flood(SLK_FLOOD_ESCAPE, &floods, &flood_iterations);
        if (!ok) {
            choice[k] = (uint8_t)(c + 1);
            continue;
        }
        k++;
        choice[k] = 0;
        if (k == clue_levels)
            n = enter_completion();
    }
    result->counters.checks = checks;
    result->counters.backtracks = backtracks;
    result->counters.candidates = candidates;
    result->counters.floods = floods;
    result->counters.flood_iterations = flood_iterations;
    result->found = found;
    result->exhausted = exhausted;
    result->aborted = aborted;
}
