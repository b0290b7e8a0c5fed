/* Rules the firmware shares with spec/ (see rules.h). */
#include "rules.h"
#include "slk_protocol.h"

int island_free(uint32_t rows, uint32_t cols, const uint8_t *codes)
{
    uint32_t r0 = rows, r1 = 0, c0 = cols, c1 = 0, any = 0, i = 0;
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t c = 0; c < cols; c++, i++) {
            uint32_t code = PROTO_GET_SOLVE_CLUES(codes, i);
            if (code == 0 || code == PROTO_CLUE_BLANK)
                continue;
            any = 1;
            if (r < r0) r0 = r;
            if (r > r1) r1 = r;
            if (c < c0) c0 = c;
            if (c > c1) c1 = c;
        }
    }
    if (!any)
        return 0;   /* a 1x2 loop may be the whole solution */
    uint32_t h = r1 - r0 + 1, w = c1 - c0 + 1;
    return !((h <= 3 && w <= 4) || (h <= 4 && w <= 3));
}

uint32_t solve_status(uint32_t found, uint32_t exhausted, uint32_t unique)
{
    return PROTO_STATUS_OF(found, exhausted, unique);
}
