/* SoC firmware: serves the UART protocol (spec/protocol.py) and runs the search.
 *
 * The receiver keeps the bytes of the current candidate frame in a buffer and
 * resynchronises exactly like host.protocol.FrameDecoder: a candidate starts
 * at a START byte; when it fails (LEN too large, bad CRC, inter-byte timeout)
 * the scan restarts at the byte after its START, so a valid frame behind
 * garbage or a truncated frame is found.
 *
 * Under garbage (docs/protocol.md, "Error replies under garbage"): a dropped
 * candidate or lost bytes get an ERROR frame only when the transmitter is idle
 * (the frame then fits the empty TX FIFO, so sending it never waits), else the
 * drop is only counted; whole frames with a good CRC are always answered.  While
 * a reply waits for room in the TX FIFO, received bytes are moved into the
 * frame buffer (rx_drain), so the 64-byte RX FIFO never overruns because of us.
 * The frame buffer is a ring (no bytes are ever moved), and the one long loop
 * over it, the CRC of a candidate, drains the FIFO every 32 bytes, as do the
 * garbage skip and every candidate: at FAST_BAUD (1 Mbaud) and 50 MHz a byte
 * arrives every 500 cycles, about 125 instructions.  A good frame's payload is copied
 * out of the ring (at most the largest SOLVE the build takes).
 * STATS reports the receiver's counters.
 *
 * Every offset and size of a frame and of a payload is a PROTO_* define of the
 * generated slk_protocol.h (accessors PROTO_GET_* / PROTO_PUT_*): a reply is
 * built in txbuf at those offsets, then sent.
 */
#include "io.h"
#include "proto.h"
#include "search.h"
#include "deduce.h"

#define RXBUF (PROTO_MAX_PAYLOAD + PROTO_OVERHEAD)
/* the largest reply: a RESULT or DEDUCE_RESULT with the colouring of the largest grid */
#define TX_PAYLOAD_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define TX_PAYLOAD_MAX TX_PAYLOAD_MAX_(PROTO_RESULT_LENGTH(SLK_MAX_ROWS * SLK_MAX_COLS), \
                                       PROTO_DEDUCE_RESULT_LENGTH(SLK_MAX_ROWS * SLK_MAX_COLS))
#define TXBUF (TX_PAYLOAD_MAX + PROTO_OVERHEAD)

/* the longest payload a request needs whole: the largest SOLVE of this build */
#define RX_PAYLOAD_MAX PROTO_SOLVE_LENGTH(SLK_MAX_ROWS * SLK_MAX_COLS)

static uint8_t rxbuf[RXBUF];          /* a ring: the candidate starts at rxbuf[head] */
static uint8_t payload[RX_PAYLOAD_MAX];  /* the payload of the last good frame */
static uint8_t txbuf[TXBUF];
static uint8_t *const txp = txbuf + PROTO_FRAME_SIZE;  /* the reply's payload */
static uint32_t head, count;          /* count bytes are buffered from head on */
static uint32_t last_rx, timeout_cycles;
static search_result_t result;
static deduce_result_t deduce_result;

/* the receiver's counters, reported by STATS (spec.protocol.Stats) */
static struct {
    uint32_t rx_bytes, frames_good, frames_bad, garbage_bytes, errors_sent, errors_suppressed;
} stats;

_Static_assert(PROTO_ERROR_SIZE + PROTO_OVERHEAD <= SOC_UART_TX_DEPTH,
               "an ERROR frame must fit the empty TX FIFO");

/* ---- CRC-16/CCITT-FALSE ---------------------------------------------------- */

static inline uint32_t crc_step(uint32_t crc, uint32_t byte)
{
    return ((crc << 8) & 0xFFFFu) ^ proto_crc_table[((crc >> 8) ^ byte) & 0xFFu];
}

static uint32_t crc16(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xFFFFu;
    while (n--)
        crc = crc_step(crc, *p++);
    return crc;
}

/* ---- small arithmetic without the M extension ------------------------------- */

static uint32_t mul_small(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    while (b) {
        if (b & 1u)
            product += a;
        a <<= 1;
        b >>= 1;
    }
    return product;
}

/* ---- receiver: moving bytes ------------------------------------------------- */

static inline uint32_t wrap(uint32_t i) { return i >= RXBUF ? i - RXBUF : i; }

/* Move the received bytes from the UART's FIFO into the ring; returns nonzero
   when a byte arrived.  Never sends anything and never moves buffered bytes. */
static int rx_drain(void)
{
    int got = 0;
    uint32_t at = wrap(head + count);
    while (count < RXBUF) {
        uint32_t word = REG(SOC_UART_DATA);
        if (word & SOC_UART_DATA_EMPTY_MASK)
            break;
        rxbuf[at] = (uint8_t)(word >> SOC_UART_DATA_BYTE_SHIFT);
        at = wrap(at + 1);
        count++;
        stats.rx_bytes++;
        got = 1;
    }
    if (got)
        last_rx = cycles_lo();
    return got;
}

/* Drop the first n buffered bytes. */
static void rx_drop(uint32_t n)
{
    head = wrap(head + n);
    count -= n;
}

/* Copy n buffered bytes from offset `from` of the candidate to out. */
static void rx_copy(uint8_t *out, uint32_t from, uint32_t n)
{
    for (uint32_t i = wrap(head + from); n--; i = wrap(i + 1))
        *out++ = rxbuf[i];
}

/* CRC of n buffered bytes from offset `from`, receiving every 32 bytes. */
static uint32_t rx_crc(uint32_t from, uint32_t n)
{
    uint32_t crc = PROTO_CRC_INIT;
    for (uint32_t i = wrap(head + from); n--; i = wrap(i + 1)) {
        crc = crc_step(crc, rxbuf[i]);
        if ((n & 31u) == 0)
            rx_drain();  /* appends behind the candidate: the bytes read stay put */
    }
    return crc;
}

/* ---- transmitter ------------------------------------------------------------- */

/* Frame the payload of `len` bytes at txp and send the frame; while the TX FIFO
   is full, keep receiving. */
static __attribute__((noinline)) void send_frame(uint32_t type, uint32_t len)
{
    PROTO_PUT_FRAME_START(txbuf, PROTO_START);
    PROTO_PUT_FRAME_LENGTH(txbuf, len);
    PROTO_PUT_FRAME_TYPE(txbuf, type);
    uint32_t end = PROTO_FRAME_SIZE + len;
    PROTO_PUT_FRAME_CRC_CRC(txbuf + end, crc16(txbuf + PROTO_FRAME_LENGTH_OFFSET,
                                               end - PROTO_FRAME_LENGTH_OFFSET));
    end += PROTO_FRAME_CRC_SIZE;
    for (uint32_t i = 0; i < end; i++) {
        while (!(REG(SOC_UART_STATUS) & SOC_UART_STATUS_TX_READY_MASK))
            rx_drain();
        uart_put(txbuf[i]);
    }
}

/* An ERROR reply to a whole frame that is refused: always sent. */
__attribute__((noinline)) void send_error(uint32_t code, uint32_t type, uint32_t detail)
{
    PROTO_PUT_ERROR_CODE(txp, code);
    PROTO_PUT_ERROR_TYPE(txp, type);
    PROTO_PUT_ERROR_DETAIL(txp, detail);
    send_frame(MSG_ERROR, PROTO_ERROR_SIZE);
    stats.errors_sent++;
}

/* An ERROR for a dropped candidate or lost bytes: only when the transmitter is
   idle (docs/protocol.md), else only counted. */
static __attribute__((noinline)) void send_drop_error(uint32_t code, uint32_t detail)
{
    if (REG(SOC_UART_STATUS) & SOC_UART_STATUS_TX_IDLE_MASK)
        send_error(code, 0, detail);
    else
        stats.errors_suppressed++;
}

static __attribute__((noinline)) void send_stats(void)
{
    PROTO_PUT_STATS_RX_BYTES(txp, stats.rx_bytes);
    PROTO_PUT_STATS_FRAMES_GOOD(txp, stats.frames_good);
    PROTO_PUT_STATS_FRAMES_BAD(txp, stats.frames_bad);
    PROTO_PUT_STATS_GARBAGE_BYTES(txp, stats.garbage_bytes);
    PROTO_PUT_STATS_ERRORS_SENT(txp, stats.errors_sent);
    PROTO_PUT_STATS_ERRORS_SUPPRESSED(txp, stats.errors_suppressed);
    PROTO_PUT_STATS_RX_OVERRUNS(txp, REG(SOC_UART_RX_OVERRUNS));
    PROTO_PUT_STATS_RX_FRAME_ERRORS(txp, REG(SOC_UART_RX_FRAME_ERRORS));
    send_frame(MSG_STATS_REPLY, PROTO_STATS_SIZE);
}

__attribute__((noinline)) void send_version(void)
{
    PROTO_PUT_VERSION_PROTOCOL(txp, PROTO_VERSION);
    PROTO_PUT_VERSION_REGMAP(txp, SLK_REGMAP_VERSION);
    PROTO_PUT_VERSION_MAX_ROWS(txp, SLK_MAX_ROWS);
    PROTO_PUT_VERSION_MAX_COLS(txp, SLK_MAX_COLS);
    PROTO_PUT_VERSION_CLOCK_HZ(txp, REG(SOC_SYSCTL_CLOCK_HZ));
    PROTO_PUT_VERSION_BAUD(txp, REG(SOC_SYSCTL_BAUD));
    PROTO_PUT_VERSION_MAX_PAYLOAD(txp, PROTO_MAX_PAYLOAD);
    PROTO_PUT_VERSION_FLAGS(txp, (accelerator_ok() ? PROTO_VERSION_ACCEL_OK : 0)
                                 | (deduce_ok() ? PROTO_VERSION_DEDUCE_OK : 0));
    send_frame(MSG_VERSION, PROTO_VERSION_SIZE);
}

/* ---- receiver ---------------------------------------------------------------- */

void proto_init(void)
{
    /* PROTO_TIMEOUT_BYTE_TIMES byte times of 10 bits */
    timeout_cycles = mul_small(REG(SOC_SYSCTL_UART_DIVISOR), PROTO_TIMEOUT_BYTE_TIMES * 10u);
    head = count = 0;
    last_rx = cycles_lo();
    REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN_MASK | SOC_UART_STATUS_RX_FRAME_ERROR_MASK;
}

static void skip_garbage(void)
{
    uint32_t skipped = 0;
    while (count && rxbuf[head] != PROTO_START) {
        head = wrap(head + 1);
        count--;
        if ((++skipped & 31u) == 0)
            rx_drain();
    }
    if (skipped)
        stats.garbage_bytes += skipped;
}

void rx_poll(void)
{
    if (rx_drain()) {
        if (REG(SOC_UART_STATUS) & SOC_UART_STATUS_RX_OVERRUN_MASK) {
            REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN_MASK;
            send_drop_error(ERR_OVERRUN, 0);
        }
        return;
    }
    skip_garbage();
    if (count && cycles_lo() - last_rx > timeout_cycles) {
        /* a frame stopped in the middle: drop its START, rescan the rest */
        stats.frames_bad++;
        rx_drop(1);
        send_drop_error(ERR_TIMEOUT, 0);
    }
}

int rx_next(frame_t *frame)
{
    uint8_t header[PROTO_FRAME_SIZE], trailer[PROTO_FRAME_CRC_SIZE];
    for (;;) {
        skip_garbage();
        if (count < PROTO_FRAME_TYPE_OFFSET)   /* LEN not complete yet */
            return 0;
        rx_copy(header, 0, PROTO_FRAME_TYPE_OFFSET);
        uint32_t len = PROTO_GET_FRAME_LENGTH(header);
        if (len > PROTO_MAX_PAYLOAD) {
            stats.frames_bad++;
            rx_drop(1);
            send_drop_error(ERR_BAD_LENGTH, 0);
            rx_drain();   /* a backlog of candidates must not let the RX FIFO overrun */
            continue;
        }
        uint32_t total = len + PROTO_OVERHEAD;
        if (count < total)
            return 0;
        uint32_t end = PROTO_FRAME_SIZE + len;
        rx_copy(header, 0, PROTO_FRAME_SIZE);
        rx_copy(trailer, end, PROTO_FRAME_CRC_SIZE);
        uint32_t got = PROTO_GET_FRAME_CRC_CRC(trailer);
        if (rx_crc(PROTO_FRAME_LENGTH_OFFSET, end - PROTO_FRAME_LENGTH_OFFSET) != got) {
            stats.frames_bad++;
            rx_drop(1);
            send_drop_error(ERR_BAD_CRC, got);
            rx_drain();
            continue;
        }
        frame->type = PROTO_GET_FRAME_TYPE(header);
        frame->len = len;
        frame->payload = payload;
        rx_copy(payload, PROTO_FRAME_SIZE, len < RX_PAYLOAD_MAX ? len : RX_PAYLOAD_MAX);
        rx_drop(total);
        stats.frames_good++;
        return 1;
    }
}

/* ---- requests ------------------------------------------------------------------ */

/* Requests that are answered the same way whether a search runs or not. */
static void handle_common(const frame_t *f)
{
    if (f->type == MSG_PING || f->type == MSG_ABORT || f->type == MSG_STATS) {
        if (f->len != 0)
            send_error(ERR_BAD_LENGTH, f->type, 0);
        else if (f->type == MSG_PING)
            send_version();
        else if (f->type == MSG_STATS)
            send_stats();
        else
            send_error(ERR_NOT_BUSY, f->type, 0);
    } else {
        send_error(ERR_UNKNOWN_TYPE, f->type, f->type);
    }
}

/* During a search: PING is answered, SOLVE is BUSY, ABORT ends the search. */
int search_poll(void)
{
    frame_t f;
    rx_poll();
    if (count == 0)
        return 0;   /* the usual case: nothing received */
    while (rx_next(&f)) {
        if (f.type == MSG_ABORT && f.len == 0)
            return 1;
        if (f.type == MSG_SOLVE)
            send_error(ERR_BUSY, MSG_SOLVE, 0);
        else
            handle_common(&f);
    }
    return 0;
}

static uint32_t status_of(uint32_t found, int exhausted, uint32_t unique)
{
    if (found >= 2)
        return STATUS_MULTIPLE;
    if (found == 1)
        return (unique && exhausted) ? STATUS_SOLVED_UNIQUE : STATUS_SOLVED;
    return exhausted ? STATUS_NO_SOLUTION : STATUS_LIMIT;
}

static void send_result(uint32_t rows, uint32_t cols, uint32_t unique, uint64_t cycles)
{
    uint32_t status = status_of(result.found, result.exhausted, unique);
    uint32_t bytes = result.found ? PROTO_RESULT_COLOURING_BYTES(mul_small(rows, cols)) : 0;
    PROTO_PUT_RESULT_STATUS(txp, status);
    PROTO_PUT_RESULT_FLAGS(txp, (result.aborted ? PROTO_RESULT_ABORTED : 0)
                                | (unique ? PROTO_RESULT_UNIQUE : 0));
    PROTO_PUT_RESULT_ROWS(txp, rows);
    PROTO_PUT_RESULT_COLS(txp, cols);
    PROTO_PUT_RESULT_CHECKS(txp, result.counters.checks);
    PROTO_PUT_RESULT_BACKTRACKS(txp, result.counters.backtracks);
    PROTO_PUT_RESULT_CANDIDATES(txp, result.counters.candidates);
    PROTO_PUT_RESULT_FLOODS(txp, result.counters.floods);
    PROTO_PUT_RESULT_FLOOD_ITERATIONS(txp, result.counters.flood_iterations);
    PROTO_PUT_RESULT_CYCLES(txp, cycles);
    for (uint32_t i = 0; i < bytes; i++)
        txp[PROTO_RESULT_COLOURING_OFFSET + i] = result.solution[i];
    send_frame(MSG_RESULT, PROTO_RESULT_SIZE + bytes);
}

static void send_deduce_result(uint32_t rows, uint32_t cols, uint32_t unique, uint64_t cycles)
{
    const deduce_result_t *d = &deduce_result;
    uint32_t status = status_of(d->found, d->exhausted, unique);
    uint32_t bytes = d->found ? deduce_colouring(d, txp + PROTO_DEDUCE_RESULT_COLOURING_OFFSET) : 0;
    PROTO_PUT_DEDUCE_RESULT_STATUS(txp, status);
    PROTO_PUT_DEDUCE_RESULT_FLAGS(txp, (d->aborted ? PROTO_RESULT_ABORTED : 0)
                                       | (unique ? PROTO_RESULT_UNIQUE : 0)
                                       | (d->trail_full ? PROTO_RESULT_TRAIL_FULL : 0));
    PROTO_PUT_DEDUCE_RESULT_ROWS(txp, rows);
    PROTO_PUT_DEDUCE_RESULT_COLS(txp, cols);
    const uint32_t *k = d->counters;
    PROTO_PUT_DEDUCE_RESULT_SWEEPS(txp, k[SLK_DEDUCE_COUNTER_SWEEPS]);
    PROTO_PUT_DEDUCE_RESULT_FLOODS(txp, k[SLK_DEDUCE_COUNTER_FLOODS]);
    PROTO_PUT_DEDUCE_RESULT_FLOOD_ITERATIONS(txp, k[SLK_DEDUCE_COUNTER_FLOOD_ITERATIONS]);
    PROTO_PUT_DEDUCE_RESULT_LABEL_RUNS(txp, k[SLK_DEDUCE_COUNTER_LABEL_RUNS]);
    PROTO_PUT_DEDUCE_RESULT_LABEL_ITERATIONS(txp, k[SLK_DEDUCE_COUNTER_LABEL_ITERATIONS]);
    PROTO_PUT_DEDUCE_RESULT_PROBES(txp, k[SLK_DEDUCE_COUNTER_PROBES]);
    PROTO_PUT_DEDUCE_RESULT_PROBE_HITS(txp, k[SLK_DEDUCE_COUNTER_PROBE_HITS]);
    PROTO_PUT_DEDUCE_RESULT_DECISIONS(txp, k[SLK_DEDUCE_COUNTER_DECISIONS]);
    PROTO_PUT_DEDUCE_RESULT_BACKTRACKS(txp, k[SLK_DEDUCE_COUNTER_BACKTRACKS]);
    PROTO_PUT_DEDUCE_RESULT_SAVES(txp, k[SLK_DEDUCE_COUNTER_SAVES]);
    PROTO_PUT_DEDUCE_RESULT_RESTORES(txp, k[SLK_DEDUCE_COUNTER_RESTORES]);
    PROTO_PUT_DEDUCE_RESULT_SOLUTIONS(txp, d->solutions);
    PROTO_PUT_DEDUCE_RESULT_ENGINE_CLOCKS(txp, k[SLK_DEDUCE_COUNTER_CLOCKS]);
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
    proto_init();
    for (;;) {
        frame_t f;
        rx_poll();
        while (rx_next(&f)) {
            if (f.type == MSG_SOLVE)
                handle_solve(&f);
            else
                handle_common(&f);
        }
    }
}
