/* SoC firmware: takes requests over the UART (proto.c, spec/protocol.py) and runs a SOLVE
 * in the mode it asks for: the paper's search on the accelerator (search.c) or the
 * deduction engine's search (deduce.c); then sends the reply.  Every offset and size of
 * a payload is a PROTO_* define of the generated slk_protocol.h, every counter list one
 * of its X-macros (spec/counters.py).
 */
#include "proto.h"
#include "search.h"
#include "deduce.h"
#include "rules.h"
#include "arith.h"
#include "io.h"

static search_result_t result;
static deduce_result_t deduce_result;

static void send_result(uint32_t rows, uint32_t cols, uint32_t unique, uint64_t cycles)
{
    uint8_t *txp = reply_payload;
    uint32_t status = solve_status(result.found, result.exhausted, unique);
    uint32_t bytes = result.found ? PROTO_RESULT_COLOURING_BYTES(mul_small(rows, cols)) : 0;
    PROTO_PUT_RESULT_STATUS(txp, status);
    PROTO_PUT_RESULT_FLAGS(txp, (result.aborted ? PROTO_RESULT_ABORTED : 0)
                                | (unique ? PROTO_RESULT_UNIQUE : 0));
    PROTO_PUT_RESULT_ROWS(txp, rows);
    PROTO_PUT_RESULT_COLS(txp, cols);
#define PUT_COUNTER(name, NAME) PROTO_PUT_RESULT_##NAME(txp, result.counters.name);
    PROTO_RESULT_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
    PROTO_PUT_RESULT_CYCLES(txp, cycles);
    for (uint32_t i = 0; i < bytes; i++)
        txp[PROTO_RESULT_COLOURING_OFFSET + i] = result.solution[i];
    send_frame(MSG_RESULT, PROTO_RESULT_SIZE + bytes);
}

static void send_deduce_result(uint32_t rows, uint32_t cols, uint32_t unique, uint64_t cycles)
{
    const deduce_result_t *d = &deduce_result;
    uint8_t *txp = reply_payload;
    uint32_t status = solve_status(d->found, d->exhausted, unique);
    uint32_t bytes = d->found ? deduce_colouring(d, txp + PROTO_DEDUCE_RESULT_COLOURING_OFFSET) : 0;
    PROTO_PUT_DEDUCE_RESULT_STATUS(txp, status);
    PROTO_PUT_DEDUCE_RESULT_FLAGS(txp, (d->aborted ? PROTO_RESULT_ABORTED : 0)
                                       | (unique ? PROTO_RESULT_UNIQUE : 0)
                                       | (d->trail_full ? PROTO_RESULT_TRAIL_FULL : 0));
    PROTO_PUT_DEDUCE_RESULT_ROWS(txp, rows);
    PROTO_PUT_DEDUCE_RESULT_COLS(txp, cols);
#define PUT_COUNTER(FIELD, REGISTER) \
    PROTO_PUT_DEDUCE_RESULT_##FIELD(txp, d->counters[SLK_DEDUCE_COUNTER_##REGISTER]);
    PROTO_DEDUCE_RESULT_ENGINE_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
    PROTO_PUT_DEDUCE_RESULT_SOLUTIONS(txp, d->solutions);   /* the one the firmware counts */
    PROTO_PUT_DEDUCE_RESULT_CYCLES(txp, cycles);
    send_frame(MSG_DEDUCE_RESULT, PROTO_DEDUCE_RESULT_SIZE + bytes);
}

/* SOLVE: validated in host.protocol.decode_solve's order (docs/protocol.md), then searched. */
static void handle_solve(const frame_t *f)
{
    const uint8_t *p = f->payload;
    if (f->len < PROTO_SOLVE_SIZE) {
        send_error(ERR_BAD_LENGTH, MSG_SOLVE, PROTO_SOLVE_SIZE);
        return;
    }
    uint32_t rows = PROTO_GET_SOLVE_ROWS(p), cols = PROTO_GET_SOLVE_COLS(p);
    uint32_t flags = PROTO_GET_SOLVE_FLAGS(p);
    uint32_t max_checks = PROTO_GET_SOLVE_MAX_CHECKS(p);
    uint32_t size = (rows << 8) | cols;
    if (rows == 0 || cols == 0) {
        send_error(ERR_BAD_SIZE, MSG_SOLVE, size);
        return;
    }
    if (rows > SLK_MAX_ROWS || cols > SLK_MAX_COLS) {
        send_error(ERR_TOO_LARGE, MSG_SOLVE, size);
        return;
    }
    uint32_t cells = mul_small(rows, cols);
    uint32_t expected = PROTO_SOLVE_LENGTH(cells);
    if (f->len != expected) {
        send_error(ERR_BAD_LENGTH, MSG_SOLVE, expected);
        return;
    }
    if (flags & ~PROTO_SOLVE_FLAGS) {
        send_error(ERR_BAD_FLAGS, MSG_SOLVE, flags);
        return;
    }
    const uint8_t *codes = p + PROTO_SOLVE_CLUES_OFFSET;
    for (uint32_t i = 0; i < cells; i++) {
        uint32_t code = PROTO_GET_SOLVE_CLUES(codes, i);
        if (code > 3u && code != PROTO_CLUE_BLANK) {
            send_error(ERR_BAD_CLUE, MSG_SOLVE, i);
            return;
        }
    }
    uint32_t unique = flags & PROTO_FLAG_UNIQUE;
    uint32_t limit = max_checks ? max_checks : 0xFFFFFFFFu;
    if (flags & PROTO_FLAG_DEDUCE) {
        if (!deduce_ok()) {
            send_error(ERR_NO_DEDUCE, MSG_SOLVE, deduce_id());
            return;
        }
        deduce_load(rows, cols, codes);       /* the frame's bytes are not used after this */
        deduce_run(unique ? 2u : 1u, limit, &deduce_result);   /* times itself */
        deduce_counters(&deduce_result);
        send_deduce_result(rows, cols, unique, deduce_result.cycles);
        return;
    }
    if (!accelerator_ok()) {
        send_error(ERR_NO_ACCELERATOR, MSG_SOLVE, accelerator_id());
        return;
    }
    search_load(rows, cols, codes);           /* the frame's bytes are not used after this */
    uint64_t start = cycles64();              /* "puzzle loaded" */
    search_run(unique ? 2u : 1u, limit, &result);
    uint64_t cycles = cycles64() - start;     /* "answer ready" */
    send_result(rows, cols, unique, cycles);
}

int main(void)
{
    proto_init((accelerator_ok() ? PROTO_VERSION_ACCEL_OK : 0)
               | (deduce_ok() ? PROTO_VERSION_DEDUCE_OK : 0));
    for (;;) {
        frame_t f;
        rx_poll();
        while (rx_next(&f)) {
            if (f.type == MSG_SOLVE)
                handle_solve(&f);
            else
                answer_common(&f);
        }
    }
}
