/* The deduce-mode search (model/deduce.py solve(), docs/deduce.md section 5) on the
   deduction engine (hw/deduce/engine.py, registers SLK_DEDUCE_* of slk_regs.h). */
#ifndef DEDUCE_H
#define DEDUCE_H

#include <stdint.h>
#include "slk_regs.h"
#include "slk_build.h"
#include "slk_protocol.h"

typedef struct {
    uint32_t counters[SLK_DEDUCE_COUNTERS];  /* the engine's, in DEDUCE_HW_COUNTERS order */
    uint32_t solutions;
    uint32_t found;              /* solutions found (at most max_solutions) */
    int exhausted;               /* the whole search space was covered */
    int aborted;                 /* ended by an ABORT request */
    int trail_full;              /* ended because the hardware trail was full */
    uint64_t cycles;             /* solve cycles: "puzzle loaded" -> "answer ready" */
    /* the first solution's colouring when a command would have changed it in the engine:
       the colouring packer's words (deduce.c), and room for one word more */
    uint32_t colouring[(31u + SLK_MAX_ROWS * SLK_MAX_COLS) / 32u + 2u];
} deduce_result_t;

/* 1 when the deduction engine answers with the right ID and build size. */
int deduce_ok(void);
uint32_t deduce_id(void);

/* Load a SOLVE's puzzle (its payload, validated, in a payload buffer: proto.h; its grid
   of `cells` cells; `island`: island_free() of its clues, rules.h) into the engine: size,
   island flag, clues, LOAD. */
void deduce_load(uint32_t rows, uint32_t cols, uint32_t cells, uint32_t island,
                 const uint8_t *payload);

/* Run the search on the loaded puzzle; max_solutions 1 or 2; decision_limit >= 1.
   The answer (found, the first solution, exhausted) is ready when it returns, and
   result->cycles is the solve's cycle count (from "puzzle loaded" to "answer ready"). */
void deduce_run(uint32_t max_solutions, uint32_t decision_limit, deduce_result_t *result);

/* Read the engine's counters into result->counters (after deduce_run: statistics for the
   reply, outside the timed solve). */
void deduce_counters(deduce_result_t *result);

/* The first solution (after deduce_run, which found one) of a grid of `cells` cells in the
   replies' colouring order (one bit per cell, row-major) into out, a reply's colouring (at
   its offset after answer_payload(): the end of the payload; the word that holds its last
   byte may be written whole); returns the colouring's bytes.  `send`: a reply sent as it is
   made (proto.h, send_stream_open): each whole word from the one that holds out[0] on is
   sent as it is stored (send_stream_word). */
uint32_t deduce_colouring(deduce_result_t *result, uint8_t *out, uint32_t cells, int send);

#endif
