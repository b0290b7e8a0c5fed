/* The frames of the UART protocol (spec/protocol.py): the receiver and the transmitter.
 *
 * The receiver keeps the bytes of the current candidate frame in a ring buffer and
 * resynchronises exactly like host.protocol.FrameDecoder: a candidate starts at a START
 * byte; its header (START LEN TYPE SEQ CHECK) is checked as soon as it is in: a wrong
 * CHECK (BAD_HEADER) or a LEN beyond what the TYPE may carry in this build (BAD_LENGTH)
 * drops it at once; a whole frame with a bad CRC is dropped (BAD_CRC), and so is one that
 * stops in the middle (the inter-byte timeout, TIMEOUT).  After a drop the scan restarts
 * at the byte after its START, so a valid frame behind garbage or a truncated frame is
 * found.  No candidate is longer than the build's largest request (a SOLVE of its largest
 * grid), so that many bytes without a START (the host's flush) end any candidate: a
 * damaged LEN never swallows the frames behind it.
 *
 * Under garbage (docs/protocol.md, "Error replies under garbage"): a dropped
 * candidate or lost bytes get an ERROR frame only when the transmitter is idle
 * (the frame then fits the empty TX FIFO, so sending it never waits), else the
 * drop is only counted; whole frames with a good CRC are always answered.  While
 * a reply waits for room in the TX FIFO, received bytes are moved into the
 * frame buffer (rx_drain), so the UART's receive FIFO never overruns because of us.
 * No bytes are ever moved within the ring, and every long loop of this unit (a candidate's
 * CRC and copy, the garbage skip: every 32 bytes; a reply's CRC: every 32 words) drains
 * the FIFO; the other units' long loops call rx_service().  The frames' CRC-16 is the
 * UART's CRC register's (CRC_DATA fed the bytes, a word at a time where they are aligned).
 * The ring is whole words and is filled a word at a time (RX_WORD) at word boundaries; a
 * good frame's payload is copied out of it a word at a time, into the buffer the caller
 * names (a queue slot: a SOLVE is never copied again), and fed to the CRC on the way.  A
 * candidate whose header was checked is not looked at again until it may be whole (or
 * time out).  STATS reports the receiver's counters.
 *
 * Every offset and size of a frame and of a payload is a PROTO_* define of the
 * generated slk_protocol.h (accessors PROTO_GET_* / PROTO_PUT_*): a reply is
 * built at reply_payload (in txbuf) at those offsets, then sent.
 */
#include "proto.h"
#include "arith.h"
#include "io.h"

/* the ring: a queue's worth of the largest request frames of this build.  A candidate is
   never longer than one of them (the flush rule); the ring holds more so that the requests
   a host may have in flight (PROTO_QUEUE_DEPTH SOLVEs) arrive whole while one solve is
   loaded and answered, at the fastest rate, without the UART's receive FIFO overrunning. */
#define RXFRAME (PROTO_RX_PAYLOAD_MAX + PROTO_OVERHEAD)
#define RXBUF PROTO_WORDS(PROTO_QUEUE_DEPTH * RXFRAME)

static uint32_t rxring[RXBUF / 4u];   /* a ring: the candidate starts at rxbuf[head] */
#define rxbuf ((uint8_t *)rxring)
static uint8_t txbuf[PROTO_WORDS(PROTO_TX_FRAME_MAX)] __attribute__((aligned(4)));
uint8_t *const reply_payload = txbuf + PROTO_FRAME_SIZE;
static uint32_t head, count, tail;    /* count bytes are buffered from head on, up to tail */
static uint32_t need;                 /* the bytes the candidate at head takes (its header
                                         checked, in header[]), else 0 */
static uint8_t header[PROTO_FRAME_SIZE];
static uint32_t last_rx, timeout_cycles;

/* the receiver's counters, reported by STATS (spec.protocol.Stats) */
static struct {
    uint32_t rx_bytes, frames_good, frames_bad, garbage_bytes, errors_sent, errors_suppressed;
} stats;

_Static_assert(PROTO_ERROR_SIZE + PROTO_OVERHEAD <= SOC_UART_TX_DEPTH,
               "an ERROR frame must fit the empty TX FIFO");
_Static_assert(PROTO_RX_PAYLOAD_MAX <= PROTO_MAX_PAYLOAD, "a SOLVE beyond the protocol's");

/* ---- CRC-16/CCITT-FALSE (the UART's CRC registers) and the header's CRC-8 ---------- */

static int rx_drain(void);

#define CRC_DATA_BYTE(lane) (*(volatile uint8_t *)(uintptr_t)(SOC_UART_CRC_DATA + (lane)))

/* Start a frame's CRC. */
static inline void crc_start(void) { REG(SOC_UART_CRC) = PROTO_CRC_INIT; }

/* The CRC so far. */
static inline uint32_t crc_value(void) { return REG(SOC_UART_CRC); }

/* Continue the CRC over n bytes at p: a byte store each up to a word boundary, then a word
   store each (receiving every 8 words: a large grid's reply takes a while, and the next
   SOLVE may be streaming in), then the last bytes. */
static void crc_feed(const uint8_t *p, uint32_t n)
{
    for (; n && ((uintptr_t)p & 3u); n--, p++)
        CRC_DATA_BYTE((uintptr_t)p & 3u) = *p;
    const uint32_t *w = (const uint32_t *)p;
    for (uint32_t i = 1; n >= 4u; n -= 4u, i++) {
        REG(SOC_UART_CRC_DATA) = *w++;
        if ((i & 7u) == 0)
            rx_drain();
    }
    for (p = (const uint8_t *)w; n; n--, p++)
        CRC_DATA_BYTE((uintptr_t)p & 3u) = *p;
}

/* CHECK of a header at h: CRC-8 over LEN, TYPE and SEQ */
static uint32_t header_check(const uint8_t *h)
{
    uint32_t crc = 0;
    for (uint32_t i = PROTO_FRAME_LENGTH_OFFSET; i < PROTO_FRAME_CHECK_OFFSET; i++)
        crc = proto_crc8_table[crc ^ h[i]];
    return crc;
}

/* ---- receiver: moving bytes ------------------------------------------------- */

static inline uint32_t wrap(uint32_t i) { return i >= RXBUF ? i - RXBUF : i; }

#define RING_END (rxring + RXBUF / 4u)

/* The end of the first `words` words of the ring from w on, or the ring's end if sooner. */
static inline uint32_t *ring_span(uint32_t *w, uint32_t words)
{
    return (uint32_t)(RING_END - w) < words ? RING_END : w + words;
}

/* Move the bytes the UART's receive FIFO holds (STATUS.rx_level, as far as the ring has
   room) into the ring: single bytes up to a word boundary, then four a read (RX_WORD), a
   word store each; fewer than four left wait for the next call, unless they are all there
   is (then single bytes).  Returns nonzero when a byte arrived.  Never sends anything and
   never moves buffered bytes. */
_Static_assert(RXBUF % 4u == 0, "the ring is whole words");
static __attribute__((noinline)) int rx_drain(void)
{
    uint32_t n = (REG(SOC_UART_STATUS) & SOC_UART_STATUS_RX_LEVEL_MASK)
                 >> SOC_UART_STATUS_RX_LEVEL_SHIFT;
    uint32_t room = RXBUF - count;
    if (n > room)
        n = room;
    if (!n)
        return 0;
    uint32_t at = tail, got = n;
    if (n >= 4u) {
        for (; at & 3u; at++, n--)   /* never past RXBUF: it is whole words */
            rxbuf[at] = (uint8_t)(REG(SOC_UART_DATA) >> SOC_UART_DATA_BYTE_SHIFT);
        uint32_t *w = at == RXBUF ? rxring : rxring + (at >> 2);
        for (uint32_t words = n >> 2; words;) {   /* up to the ring's end, then from its start */
            uint32_t *stop = ring_span(w, words);
            words -= (uint32_t)(stop - w);
            do
                *w++ = REG(SOC_UART_RX_WORD);
            while (w != stop);
            if (w == RING_END)
                w = rxring;
        }
        at = 4u * (uint32_t)(w - rxring);
        got -= n & 3u;   /* the rest: the next call's */
        n = 0;
    }
    for (; n; n--) {
        rxbuf[at] = (uint8_t)(REG(SOC_UART_DATA) >> SOC_UART_DATA_BYTE_SHIFT);
        if (++at == RXBUF)
            at = 0;
    }
    tail = at;
    count += got;
    stats.rx_bytes += got;
    last_rx = cycles_lo();
    return 1;
}

void rx_service(void)
{
    rx_drain();
}

/* Drop the first n buffered bytes. */
static void rx_drop(uint32_t n)
{
    head = wrap(head + n);
    count -= n;
    need = 0;
}

/* Copy n buffered bytes from offset `from` of the candidate to out, whole words (the
   bytes past n up to the word's end are whatever follows them in the ring), feeding the n
   bytes to the CRC, receiving every 32 words (behind the candidate: the bytes read stay
   put).  The ring is read a word at a time, each word of out from two of the ring's. */
static void rx_take(uint32_t *out, uint32_t from, uint32_t n)
{
    uint32_t at = wrap(head + from), shift = 8u * (at & 3u), left = 31u - shift;
    uint32_t *src = rxring + (at >> 2), low = *src++, *stop = out + (n >> 2);
    for (;;) {   /* whole words: 32 at most, none past the ring's end, then receive */
        if (src == RING_END)
            src = rxring;
        uint32_t *chunk = stop - out > 32 ? out + 32 : stop;
        if (chunk - out > RING_END - src)
            chunk = out + (RING_END - src);
        for (; out != chunk; out++) {
            uint32_t high = *src++;
            uint32_t word = (low >> shift) | ((high << left) << 1);   /* shift 0: low */
            low = high;
            *out = word;
            REG(SOC_UART_CRC_DATA) = word;
        }
        if (out == stop)
            break;
        rx_drain();
    }
    if (n & 3u) {   /* the last bytes, in the low lanes of one more word */
        if (src == RING_END)
            src = rxring;
        uint32_t word = (low >> shift) | ((*src << left) << 1);
        *out = word;
        for (n &= 3u; n; n--, word >>= 8)
            CRC_DATA_BYTE(0) = (uint8_t)word;
    }
}

/* Copy the few (a header's, a trailer's) buffered bytes from offset `from` of the
   candidate to out. */
static void rx_copy(uint8_t *out, uint32_t from, uint32_t n)
{
    for (uint32_t i = wrap(head + from); n--; i = wrap(i + 1))
        *out++ = rxbuf[i];
}

/* ---- transmitter ------------------------------------------------------------- */

int tx_idle(void)
{
    return (REG(SOC_UART_STATUS) & SOC_UART_STATUS_TX_IDLE_MASK) != 0;
}

_Static_assert(SOC_UART_TX_DEPTH % 4u == 0, "the empty TX FIFO takes whole words");

void send_bytes(const uint8_t *p, uint32_t n)
{
    if (tx_idle()) {   /* the TX FIFO is empty: its depth goes in without a look */
        const uint32_t *w = (const uint32_t *)(const void *)p;
        uint32_t k = (n < SOC_UART_TX_DEPTH ? n : SOC_UART_TX_DEPTH) & ~3u;
        for (n -= k; k; k -= 4u) {   /* a word's four bytes, the first in bits 7:0 */
            uint32_t word = *w++;
            uart_put_low(word);
            uart_put_low(word >> 8);
            uart_put_low(word >> 16);
            uart_put_low(word >> 24);
        }
        p = (const uint8_t *)w;
    }
    while (n--) {
        while (!(REG(SOC_UART_STATUS) & SOC_UART_STATUS_TX_READY_MASK))
            rx_drain();
        uart_put(*p++);
    }
}

uint32_t send_frame_at(uint8_t *frame, uint32_t type, uint32_t seq, uint32_t len)
{
    PROTO_PUT_FRAME_START(frame, PROTO_START);
    PROTO_PUT_FRAME_LENGTH(frame, len);
    PROTO_PUT_FRAME_TYPE(frame, type);
    PROTO_PUT_FRAME_SEQ(frame, seq);
    PROTO_PUT_FRAME_CHECK(frame, header_check(frame));
    uint32_t end = PROTO_FRAME_SIZE + len;
    crc_start();
    crc_feed(frame + PROTO_FRAME_LENGTH_OFFSET, end - PROTO_FRAME_LENGTH_OFFSET);
    PROTO_PUT_FRAME_CRC_CRC(frame + end, crc_value());
    end += PROTO_FRAME_CRC_SIZE;
    send_bytes(frame, end);
    return end;
}

__attribute__((noinline)) uint32_t send_frame(uint32_t type, uint32_t seq, uint32_t len)
{
    return send_frame_at(txbuf, type, seq, len);
}

__attribute__((noinline)) void send_error(uint32_t code, uint32_t type, uint32_t seq,
                                          uint32_t detail)
{
    PROTO_PUT_ERROR_CODE(reply_payload, code);
    PROTO_PUT_ERROR_TYPE(reply_payload, type);
    PROTO_PUT_ERROR_DETAIL(reply_payload, detail);
    send_frame(MSG_ERROR, seq, PROTO_ERROR_SIZE);
    stats.errors_sent++;
}

/* An ERROR for a dropped candidate or lost bytes (SEQ 0, type 0): only when the
   transmitter is idle (docs/protocol.md), else only counted. */
static __attribute__((noinline)) void send_drop_error(uint32_t code, uint32_t detail)
{
    if (tx_idle())
        send_error(code, 0, 0, detail);
    else
        stats.errors_suppressed++;
}

void send_stats(uint32_t seq)
{
    PROTO_PUT_STATS_RX_BYTES(reply_payload, stats.rx_bytes);
    PROTO_PUT_STATS_FRAMES_GOOD(reply_payload, stats.frames_good);
    PROTO_PUT_STATS_FRAMES_BAD(reply_payload, stats.frames_bad);
    PROTO_PUT_STATS_GARBAGE_BYTES(reply_payload, stats.garbage_bytes);
    PROTO_PUT_STATS_ERRORS_SENT(reply_payload, stats.errors_sent);
    PROTO_PUT_STATS_ERRORS_SUPPRESSED(reply_payload, stats.errors_suppressed);
    PROTO_PUT_STATS_RX_OVERRUNS(reply_payload, REG(SOC_UART_RX_OVERRUNS));
    PROTO_PUT_STATS_RX_FRAME_ERRORS(reply_payload, REG(SOC_UART_RX_FRAME_ERRORS));
    send_frame(MSG_STATS_REPLY, seq, PROTO_STATS_SIZE);
}

/* ---- receiver ---------------------------------------------------------------- */

void rx_timeout(uint32_t cycles)
{
    /* PROTO_TIMEOUT_BYTE_TIMES byte times of 10 bits */
    timeout_cycles = mul_small(cycles, PROTO_TIMEOUT_BYTE_TIMES * 10u);
    last_rx = cycles_lo();
}

void rx_clear(void)
{
    head = count = tail = need = 0;
    while (!(REG(SOC_UART_DATA) & SOC_UART_DATA_EMPTY_MASK))
        ;
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

/* Drop the candidate at head (its START): count it, report it (see send_drop_error). */
static void drop(uint32_t code, uint32_t detail)
{
    stats.frames_bad++;
    rx_drop(1);
    send_drop_error(code, detail);
    rx_drain();   /* a backlog of candidates must not let the RX FIFO overrun */
}

int rx_poll(void)
{
    if (rx_drain()) {
        if (REG(SOC_UART_STATUS) & SOC_UART_STATUS_RX_OVERRUN_MASK) {
            REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN_MASK;
            send_drop_error(ERR_OVERRUN, 0);
        }
        return 1;
    }
    skip_garbage();
    return count != 0;
}

/* The candidate at head is not whole yet: 1 when it stopped in the middle (no byte for the
   inter-byte timeout; then it is dropped and the rest rescanned), 0 while it may go on. */
static int stopped(void)
{
    if (cycles_lo() - last_rx <= timeout_cycles)
        return 0;
    drop(ERR_TIMEOUT, 0);
    return 1;
}

/* The frame's first byte copied into a payload buffer: the payload then starts at its
   byte PROTO_PAYLOAD_AT. */
#define COPY_FROM (PROTO_FRAME_SIZE - PROTO_PAYLOAD_AT)
_Static_assert(COPY_FROM > PROTO_FRAME_LENGTH_OFFSET, "the copy starts past START");

/* The longest payload a request of `type` may announce in this build. */
static uint32_t max_length(uint32_t type)
{
    /* SOLVE, and a type it does not know (UNKNOWN_TYPE): the build's largest request */
    return PROTO_REQUEST_LENGTH(type, PROTO_RX_PAYLOAD_MAX);
}

/* rx_next() past its quick answer. */
static __attribute__((noinline)) int rx_scan(frame_t *frame, payload_t *into)
{
    uint8_t trailer[PROTO_FRAME_CRC_SIZE];
    for (;;) {
        if (!need) {   /* a candidate's header, checked once */
            skip_garbage();
            if (count < PROTO_FRAME_SIZE) {   /* nothing, or a header not complete yet */
                if (count && stopped())
                    continue;
                return 0;
            }
            rx_copy(header, 0, PROTO_FRAME_SIZE);
            uint32_t check = PROTO_GET_FRAME_CHECK(header);
            if (header_check(header) != check) {
                drop(ERR_BAD_HEADER, check);
                continue;
            }
            uint32_t len = PROTO_GET_FRAME_LENGTH(header);
            if (len > max_length(PROTO_GET_FRAME_TYPE(header))) {
                drop(ERR_BAD_LENGTH, 0);
                continue;
            }
            need = len + PROTO_OVERHEAD;
        }
        uint32_t len = PROTO_GET_FRAME_LENGTH(header), type = PROTO_GET_FRAME_TYPE(header);
        uint32_t total = need;
        if (count < total) {
            if (stopped())
                continue;
            return 0;
        }
        uint32_t end = PROTO_FRAME_SIZE + len;
        rx_copy(trailer, end, PROTO_FRAME_CRC_SIZE);
        uint32_t got = PROTO_GET_FRAME_CRC_CRC(trailer);
        /* the CRC over LEN .. the header's end, then on over the payload as it is copied
           (with the header's last PROTO_PAYLOAD_AT bytes before it: the payload at its
           offset in the buffer) */
        crc_start();
        for (uint32_t i = PROTO_FRAME_LENGTH_OFFSET; i < COPY_FROM; i++)
            CRC_DATA_BYTE(0) = header[i];
        rx_take(into->words, COPY_FROM, PROTO_PAYLOAD_AT + len);
        if (crc_value() != got) {
            drop(ERR_BAD_CRC, got);
            continue;
        }
        frame->type = (uint8_t)type;
        frame->seq = PROTO_GET_FRAME_SEQ(header);
        frame->crc = (uint16_t)got;
        frame->len = len;
        frame->payload = payload_of(into);
        rx_drop(total);
        stats.frames_good++;
        return 1;
    }
}

int rx_next(frame_t *frame, payload_t *into)
{
    /* nothing buffered, or too few bytes for a header or for the candidate checked before,
       and no stop (the inter-byte timeout) yet: nothing to look at */
    if (count < (need ? need : PROTO_FRAME_SIZE)
        && (!count || cycles_lo() - last_rx <= timeout_cycles))
        return 0;
    return rx_scan(frame, into);
}
