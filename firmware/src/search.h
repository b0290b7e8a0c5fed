/* The paper-faithful search (model/paper.py search(), paper section 3.1) on the accelerator. */
#ifndef SEARCH_H
#define SEARCH_H

#include <stdint.h>
#include "slk_regs.h"
#include "slk_build.h"
#include "slk_protocol.h"

typedef struct {
    uint32_t checks;             /* partial-condition checks */
    uint32_t backtracks;         /* levels that ran out of options */
    uint32_t candidates;         /* fully assigned states examined */
    uint64_t floods;             /* runs of the flood array */
    uint64_t flood_iterations;   /* FLOOD_ITERATIONS, summed */
} counters_t;

typedef struct {
    counters_t counters;
    uint32_t found;              /* solutions found (at most max_solutions) */
    int exhausted;               /* the whole search space was covered */
    int aborted;                 /* ended by an ABORT request */
    uint8_t solution[PROTO_RESULT_COLOURING_BYTES(SLK_MAX_ROWS * SLK_MAX_COLS)];  /* the first */
} search_result_t;

/* 1 when the accelerator answers with the right ID and build size. */
int accelerator_ok(void);
uint32_t accelerator_id(void);

/* Load a puzzle into the accelerator: codes are 4 bits per cell (protocol),
   already validated.  Returns nothing; clears the accelerator first. */
void search_load(uint32_t rows, uint32_t cols, const uint8_t *codes);

/* Run the search on the loaded puzzle; max_solutions 1 or 2; check_limit >= 1. */
void search_run(uint32_t max_solutions, uint32_t check_limit, search_result_t *result);

/* The search serves the UART (serve_while_searching) every SEARCH_POLL_MASK + 1 checks. */
#define SEARCH_POLL_MASK 31u

#endif
