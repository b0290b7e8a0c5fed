/* SoC firmware: serves the UART's requests (serve.c, proto.c, spec/protocol.py) and solves
 * the queued SOLVEs one at a time in the mode each asks for: the paper's search on the
 * accelerator (search.c) or the deduction engine's search (deduce.c); then sends the reply:
 * ANSWER, or RESULT / DEDUCE_RESULT with the counters when the SOLVE asks for them.  Every
 * offset and size of a payload is a PROTO_* define of the generated slk_protocol.h, every
 * counter list one of its X-macros (spec/counters.py).
 */
#include "proto.h"
#include "serve.h"
#include "search.h"
#include "deduce.h"
#include "rules.h"
#include "arith.h"
#include "io.h"

static search_result_t result;
static deduce_result_t deduce_result;

/* The flags of every reply to a SOLVE (ANSWER's, RESULT's and DEDUCE_RESULT's). */
static uint32_t reply_flags(int aborted, uint32_t unique, uint32_t deduce, int trail_full)
{
    return (aborted ? PROTO_RESULT_ABORTED : 0) | (unique ? PROTO_RESULT_UNIQUE : 0)
           | (deduce ? PROTO_RESULT_DEDUCE : 0) | (trail_full ? PROTO_RESULT_TRAIL_FULL : 0);
}

/* The ANSWER's fields before its colouring, at txp (answer_payload()). */
static inline void put_answer(uint8_t *txp, uint32_t status, uint32_t flags, uint32_t rows,
                              uint32_t cols)
{
    PROTO_PUT_ANSWER_STATUS(txp, status);
    PROTO_PUT_ANSWER_FLAGS(txp, flags);
    PROTO_PUT_ANSWER_ROWS(txp, rows);
    PROTO_PUT_ANSWER_COLS(txp, cols);
}

/* ANSWER at txp (answer_payload()): the status and the colouring (colouring: the bytes
   already at its offset). */
static void send_answer(uint8_t *txp, uint32_t status, uint32_t flags, uint32_t rows,
                        uint32_t cols, uint32_t bytes)
{
    put_answer(txp, status, flags, rows, cols);
    serve_answer(MSG_ANSWER, PROTO_ANSWER_SIZE + bytes, 0);
}

static void send_result(uint32_t rows, uint32_t cols, uint32_t unique, uint32_t counters,
                        uint64_t cycles)
{
    uint8_t *txp = answer_payload();
    uint32_t status = solve_status(result.found, result.exhausted, unique);
    uint32_t flags = reply_flags(result.aborted, unique, 0, 0);
    uint32_t bytes = result.found ? PROTO_RESULT_COLOURING_BYTES(mul_small(rows, cols)) : 0;
    uint8_t *colouring = txp + (counters ? PROTO_RESULT_COLOURING_OFFSET
                                         : PROTO_ANSWER_COLOURING_OFFSET);
    for (uint32_t i = 0; i < bytes; i++)
        colouring[i] = result.solution[i];
    if (!counters) {
        send_answer(txp, status, flags, rows, cols, bytes);
        return;
    }
    PROTO_PUT_RESULT_STATUS(txp, status);
    PROTO_PUT_RESULT_FLAGS(txp, flags);
    PROTO_PUT_RESULT_ROWS(txp, rows);
    PROTO_PUT_RESULT_COLS(txp, cols);
#define PUT_COUNTER(name, NAME) PROTO_PUT_RESULT_##NAME(txp, result.counters.name);
    PROTO_RESULT_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
    PROTO_PUT_RESULT_CYCLES(txp, cycles);
    serve_answer(MSG_RESULT, PROTO_RESULT_SIZE + bytes, 0);
}

/* DEDUCE_RESULT, or ANSWER without the counters; an ANSWER alone (serve_alone) is sent as it
   is made: its first bytes before the colouring is packed, each word of the colouring as it
   is packed. */
static void send_deduce_result(uint32_t rows, uint32_t cols, uint32_t cells, uint32_t unique,
                               uint32_t counters)
{
    deduce_result_t *d = &deduce_result;
    uint8_t *txp = answer_payload();
    uint32_t status = solve_status(d->found, d->exhausted, unique);
    uint32_t flags = reply_flags(d->aborted, unique, 1, d->trail_full);
    uint32_t seq = 0, len = 0;
    if (!counters) {
        len = PROTO_ANSWER_LENGTH(d->found ? cells : 0);
        seq = serve_alone(len);
        put_answer(txp, status, flags, rows, cols);
        if (seq)
            send_stream_open(txp - PROTO_FRAME_SIZE);
    }
    uint32_t bytes = d->found
        ? deduce_colouring(d, txp + (counters ? PROTO_DEDUCE_RESULT_COLOURING_OFFSET
                                              : PROTO_ANSWER_COLOURING_OFFSET), cells, seq != 0)
        : 0;
    if (!counters) {
        if (seq)
            send_stream_close(txp - PROTO_FRAME_SIZE, len);
        serve_answer(MSG_ANSWER, len, seq != 0);
        return;
    }
    deduce_counters(d);
    PROTO_PUT_DEDUCE_RESULT_STATUS(txp, status);
    PROTO_PUT_DEDUCE_RESULT_FLAGS(txp, flags);
    PROTO_PUT_DEDUCE_RESULT_ROWS(txp, rows);
    PROTO_PUT_DEDUCE_RESULT_COLS(txp, cols);
#define PUT_COUNTER(FIELD, REGISTER) \
    PROTO_PUT_DEDUCE_RESULT_##FIELD(txp, d->counters[SLK_DEDUCE_COUNTER_##REGISTER]);
    PROTO_DEDUCE_RESULT_ENGINE_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
    PROTO_PUT_DEDUCE_RESULT_SOLUTIONS(txp, d->solutions);   /* the one the firmware counts */
    PROTO_PUT_DEDUCE_RESULT_CYCLES(txp, d->cycles);
    serve_answer(MSG_DEDUCE_RESULT, PROTO_DEDUCE_RESULT_SIZE + bytes, 0);
}

/* Solve a queued SOLVE (validated when it arrived, serve.c) and answer it. */
static void solve(const request_t *r)
{
    const uint8_t *p = payload_of(&r->buffer);
    uint32_t rows = PROTO_GET_SOLVE_ROWS(p), cols = PROTO_GET_SOLVE_COLS(p);
    uint32_t flags = PROTO_GET_SOLVE_FLAGS(p);
    uint32_t max_checks = PROTO_GET_SOLVE_MAX_CHECKS(p);
    const uint8_t *codes = p + PROTO_SOLVE_CLUES_OFFSET;
    uint32_t unique = flags & PROTO_FLAG_UNIQUE, counters = flags & PROTO_FLAG_COUNTERS;
    uint32_t limit = max_checks ? max_checks : 0xFFFFFFFFu;
    if (flags & PROTO_FLAG_DEDUCE) {
        deduce_load(rows, cols, r->cells, r->island, p);
        deduce_run(unique ? 2u : 1u, limit, &deduce_result);   /* times itself */
        send_deduce_result(rows, cols, r->cells, unique, counters);
        return;
    }
    serve_flush();   /* the reply before: the search's first serve may be far */
    search_load(rows, cols, codes);
    uint64_t start = cycles64();              /* "puzzle loaded" */
    search_run(unique ? 2u : 1u, limit, &result);
    uint64_t cycles = cycles64() - start;     /* "answer ready" */
    send_result(rows, cols, unique, counters, cycles);
}

int main(void)
{
    serve_init((accelerator_ok() ? PROTO_VERSION_ACCEL_OK : 0)
               | (deduce_ok() ? PROTO_VERSION_DEDUCE_OK : 0), accelerator_id(), deduce_id());
    for (;;) {
        const request_t *r = serve_poll();
        if (r)
            solve(r);
    }
}
