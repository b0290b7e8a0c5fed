/* The UART protocol (spec/protocol.py): the receiver, the transmitter, and the service
 * of requests while a search runs.
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
 * built at reply_payload (in txbuf) at those offsets, then sent.
 *
 * While a search runs, the search calls serve_while_searching() every few thousand
 * cycles: PING and STATS are answered, SOLVE is refused (BUSY) and ABORT ends the search.
 */
#include "proto.h"
#include "arith.h"
#include "io.h"

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
uint8_t *const reply_payload = txbuf + PROTO_FRAME_SIZE;
static uint32_t head, count;          /* count bytes are buffered from head on */
static uint32_t last_rx, timeout_cycles;
static uint32_t version;              /* VERSION's flags */

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

__attribute__((noinline)) void send_frame(uint32_t type, uint32_t len)
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

__attribute__((noinline)) void send_error(uint32_t code, uint32_t type, uint32_t detail)
{
    PROTO_PUT_ERROR_CODE(reply_payload, code);
    PROTO_PUT_ERROR_TYPE(reply_payload, type);
    PROTO_PUT_ERROR_DETAIL(reply_payload, detail);
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
    PROTO_PUT_STATS_RX_BYTES(reply_payload, stats.rx_bytes);
    PROTO_PUT_STATS_FRAMES_GOOD(reply_payload, stats.frames_good);
    PROTO_PUT_STATS_FRAMES_BAD(reply_payload, stats.frames_bad);
    PROTO_PUT_STATS_GARBAGE_BYTES(reply_payload, stats.garbage_bytes);
    PROTO_PUT_STATS_ERRORS_SENT(reply_payload, stats.errors_sent);
    PROTO_PUT_STATS_ERRORS_SUPPRESSED(reply_payload, stats.errors_suppressed);
    PROTO_PUT_STATS_RX_OVERRUNS(reply_payload, REG(SOC_UART_RX_OVERRUNS));
    PROTO_PUT_STATS_RX_FRAME_ERRORS(reply_payload, REG(SOC_UART_RX_FRAME_ERRORS));
    send_frame(MSG_STATS_REPLY, PROTO_STATS_SIZE);
}

static __attribute__((noinline)) void send_version(void)
{
    PROTO_PUT_VERSION_PROTOCOL(reply_payload, PROTO_VERSION);
    PROTO_PUT_VERSION_REGMAP(reply_payload, SLK_REGMAP_VERSION);
    PROTO_PUT_VERSION_MAX_ROWS(reply_payload, SLK_MAX_ROWS);
    PROTO_PUT_VERSION_MAX_COLS(reply_payload, SLK_MAX_COLS);
    PROTO_PUT_VERSION_CLOCK_HZ(reply_payload, REG(SOC_SYSCTL_CLOCK_HZ));
    PROTO_PUT_VERSION_BAUD(reply_payload, REG(SOC_SYSCTL_BAUD));
    PROTO_PUT_VERSION_MAX_PAYLOAD(reply_payload, PROTO_MAX_PAYLOAD);
    PROTO_PUT_VERSION_FLAGS(reply_payload, version);
    send_frame(MSG_VERSION, PROTO_VERSION_SIZE);
}

/* ---- receiver ---------------------------------------------------------------- */

void proto_init(uint32_t version_flags)
{
    version = version_flags;
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

void answer_common(const frame_t *f)
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

int serve_while_searching(void)
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
            answer_common(&f);
    }
    return 0;
}
