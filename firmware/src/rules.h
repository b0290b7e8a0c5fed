/* Rules the firmware shares with spec/, in pure C: no I/O, no build header, so the tests
   also compile rules.c for the host and compare it with spec/ (tests/firmware/test_rules.py). */
#ifndef RULES_H
#define RULES_H

#include <stdint.h>

/* spec.deduce.island_free of a SOLVE's clues (4-bit codes, validated) on a grid of `cols`
   columns and `cells` cells, as clue words (clues.h: word k holds the codes of cells 8k ..
   8k + 7; those past the grid in the last word are ignored): 1 when the nonzero clues do
   not fit in a 3x4 or 4x3 box, so no 1x2 loop can be the whole solution; 0 when there is no
   nonzero clue. */
int island_free(uint32_t cols, uint32_t cells, const uint32_t *words);

/* spec.protocol.status_of: RESULT's status of a search that found `found` solutions, covered
   its whole search space (exhausted) or not, and was asked for uniqueness or not. */
uint32_t solve_status(uint32_t found, uint32_t exhausted, uint32_t unique);

#endif
