/* The frames of the UART protocol (spec/protocol.py): the receiver and the transmitter.
 *
 * The UART writes what it receives into a ring in block RAM (RX_RING, docs/soc.md "The
 * UART"); the receiver reads the candidate frame's bytes there, where they are, and
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
 * drop is only counted; whole frames with a good CRC are always answered.  Receiving is
 * counting (rx_drain: RX_WRITTEN, the bytes the UART has written); the bytes before a
 * candidate are handed back to the UART (RX_TAKEN) as it is taken or dropped, so the ring
 * never fills while the firmware takes frames as a search serves its link.
 * The frames' CRC-16 is the UART's CRC register's: a received frame's bytes are fed to it
 * (CRC_DATA, a word at a time), a reply's as they are sent (TX_CRC).  A
 * good frame's payload is copied out of the ring a word at a time, into the buffer the caller
 * names (a queue slot: a SOLVE is never copied again), and fed to the CRC on the way; a
 * SOLVE's clue words but the last are read through RX_CLUE_WORD, which checks their codes
 * on the way (frame_t's clues_bad).  A
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

/* the ring: the UART's (SOC_RX_RING_BASE), into which it writes what it receives; it
   holds a queue's worth of the largest request frames of this build (spec.registers.
   rx_ring_size).  A candidate is never longer than one of them (the flush rule); the ring
   holds more so that the requests a host may have in flight (SLK_QUEUE_DEPTH SOLVEs)
   arrive whole while one solve is loaded and answered.  Read through the UART's reader
   (ring_at) and, for a START, a volatile pointer: the UART writes past the bytes counted. */
#define RXFRAME (PROTO_RX_PAYLOAD_MAX + PROTO_OVERHEAD)
#define RXBUF SOC_RX_RING_SIZE
_Static_assert(RXBUF >= SLK_QUEUE_DEPTH * RXFRAME, "the ring holds a queue's requests");
_Static_assert((RXBUF & (RXBUF - 1u)) == 0, "the ring's size is a power of two");

#define rxbuf ((const volatile uint8_t *)(uintptr_t)SOC_RX_RING_BASE)
static uint8_t txbuf[PROTO_WORDS(PROTO_TX_FRAME_MAX)] __attribute__((aligned(4)));
uint8_t *const reply_payload = txbuf + PROTO_FRAME_SIZE;
static uint32_t head, count;          /* count bytes are buffered from head on */
static uint32_t seen;                 /* RX_WRITTEN when last looked at */
static uint32_t need;                 /* the bytes the candidate at head takes (its header
                                         checked, in header[]), else 0 */
/* the candidate's header (header_in), placed so that its bytes from LEN up to the payload's
   copy (COPY_FROM: the frame CRC's first bytes) are one word, header_words[1] */
_Static_assert(PROTO_FRAME_LENGTH_OFFSET == 1u && PROTO_FRAME_SIZE <= 8u,
               "header_in: the header starts at byte 3 of header_words, within two words");
static uint32_t header_words[3];
#define header ((uint8_t *)header_words + 4u - PROTO_FRAME_LENGTH_OFFSET)
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

/* CHECK of a header at h: CRC-8 over LEN, TYPE and SEQ */
_Static_assert(PROTO_FRAME_CHECK_OFFSET - PROTO_FRAME_LENGTH_OFFSET == 4u,
               "CHECK covers four bytes");
static uint32_t header_check(const uint8_t *h)
{
    const uint8_t *b = h + PROTO_FRAME_LENGTH_OFFSET;   /* a lookup a byte, unrolled */
    uint32_t crc = proto_crc8_table[b[0]];
    crc = proto_crc8_table[crc ^ b[1]];
    crc = proto_crc8_table[crc ^ b[2]];
    return proto_crc8_table[crc ^ b[3]];
}

/* ---- receiver: the UART's ring ------------------------------------------------ */

static inline uint32_t wrap(uint32_t i) { return i & (RXBUF - 1u); }

/* Count the bytes the UART has written into its ring since the last look (RX_WRITTEN):
   nonzero when a byte arrived.  Nothing is moved: the ring is read where it is. */
static int rx_drain(void)
{
    uint32_t now = REG(SOC_UART_RX_WRITTEN);
    uint32_t got = (now - seen) & SOC_UART_RX_WRITTEN_COUNT_MASK;
    if (!got)
        return 0;
    seen = now;
    count += got;
    stats.rx_bytes += got;
    last_rx = cycles_lo();
    return 1;
}

void rx_service(void)
{
    rx_drain();
}

int rx_quiet(void)
{
    return !count && REG(SOC_UART_RX_WRITTEN) == seen;
}

/* The bytes before head are taken: the UART may write over them (RX_TAKEN). */
static inline void rx_release(void)
{
    REG(SOC_UART_RX_TAKEN) = seen - count;
}

/* Drop the first n buffered bytes. */
static void rx_drop(uint32_t n)
{
    head = wrap(head + n);
    count -= n;
    need = 0;
    rx_release();
}

/* The ring's reader: RX_AT names a byte of the ring, each RX_WORD or RX_CRC_WORD read gives
   the four bytes from there on (wrapping) and moves on; RX_CRC_WORD feeds them to the CRC. */
static inline void ring_at(uint32_t at) { REG(SOC_UART_RX_AT) = at; }
static inline uint32_t ring_word(void) { return REG(SOC_UART_RX_WORD); }

/* The words from out up to stop, each a read of the ring's reader at `reg` (RX_CRC_WORD or
   RX_CLUE_WORD), two a step. */
static inline __attribute__((always_inline)) uint32_t *ring_words(uint32_t *out,
                                                                  uint32_t *stop, uintptr_t reg)
{
    if ((stop - out) & 1)
        *out++ = REG(reg);
    for (; out != stop; out += 2) {
        out[0] = REG(reg);
        out[1] = REG(reg);
    }
    return out;
}

/* Copy the n buffered bytes from offset `from` of the candidate to out, whole words (the bytes
   past n up to the word's end are whatever follows them in the ring), feeding the n bytes to
   the CRC: a read a word, RX_CRC_WORD but for the `clue_words` words from word `clue_from`
   on, a SOLVE's clue words, read through RX_CLUE_WORD (CLUE_BAD: their codes checked on the
   way; clue_from + clue_words at most n / 4); the last bytes' word by RX_WORD, its n % 4
   bytes fed by a store.  `arrived`: the whole words were copied and fed as they arrived
   (rx_arrive), only the last bytes are left. */
static inline __attribute__((always_inline)) void rx_take(uint32_t *out, uint32_t from,
                                                          uint32_t n, uint32_t clue_from,
                                                          uint32_t clue_words, int arrived)
{
    uint32_t *clues = out + clue_from, *stop = out + n / 4u;
    if (arrived) {   /* the whole words are copied (rx_arrive): the reader to the last bytes */
        ring_at(wrap(head + from + (n & ~3u)));
        out = stop;
    } else {
        ring_at(wrap(head + from));
        out = ring_words(out, clues, SOC_UART_RX_CRC_WORD);
        out = ring_words(out, clues + clue_words, SOC_UART_RX_CLUE_WORD);
        out = ring_words(out, stop, SOC_UART_RX_CRC_WORD);
    }
    if (n & 3u) {   /* the last bytes, in the low lanes of one more word */
        uint32_t word = ring_word();
        *out = word;
        if (n & 2u)
            *(volatile uint16_t *)(uintptr_t)SOC_UART_CRC_DATA = (uint16_t)word;
        if (n & 1u)
            CRC_DATA_BYTE(n & 2u) = (uint8_t)(word >> (8u * (n & 2u)));
    }
}

/* ---- transmitter ------------------------------------------------------------- */

int tx_idle(void)
{
    return (REG(SOC_UART_STATUS) & SOC_UART_STATUS_TX_IDLE_MASK) != 0;
}

/* The transmitter takes a frame's bytes a store at a time (TX_WORD, and TX_CRC for the
   bytes its CRC covers: sent and fed to the CRC in one pass).  `room` counts the bytes the
   TX FIFO still takes without a look: all of it when it was idle, then what each store
   took; below four, STATUS.tx_word_ready is waited for, receiving meanwhile. */
#define TX_WORD_AT(reg) (*(volatile uint32_t *)(uintptr_t)(reg))
#define TX_HALF_AT(reg) (*(volatile uint16_t *)(uintptr_t)(reg))
#define TX_BYTE_AT(reg) (*(volatile uint8_t *)(uintptr_t)(reg))

static inline uint32_t tx_room(void) { return tx_idle() ? SOC_UART_TX_DEPTH : 0; }

/* Wait until the TX FIFO has room for a word: the room known then. */
static __attribute__((noinline)) uint32_t tx_wait(void)
{
    tx_word_room();
    return 4u;
}

/* Before a store of `bytes` bytes, `checked`: the room looked at (and waited for). */
static inline void tx_take(uint32_t *room, uint32_t bytes, int checked)
{
    if (!checked)
        return;
    if (*room < 4u)
        *room = tx_wait();
    *room -= bytes;
}

/* The bytes from `at` up to `end` (a word boundary past at's) of word-aligned p to `reg`
   (SOC_UART_TX_WORD or SOC_UART_TX_CRC): a store a word, then the last bytes in at most two
   (the buffer is whole words). */
static inline __attribute__((always_inline)) void tx_bytes(uint32_t *room, uintptr_t reg,
                                                           const uint8_t *p, uint32_t at,
                                                           uint32_t end, int checked)
{
    const uint32_t *w = (const uint32_t *)(const void *)(p + at);
    const uint32_t *stop = (const uint32_t *)(const void *)p + end / 4u;
    for (; w != stop; w++) {
        tx_take(room, 4u, checked);
        TX_WORD_AT(reg) = *w;
    }
    uint32_t left = end & 3u, word = left ? *w : 0;   /* the last bytes: a word's low lanes */
    if (left & 2u) {
        tx_take(room, 2u, checked);
        TX_HALF_AT(reg) = (uint16_t)word;
    }
    if (left & 1u) {
        tx_take(room, 1u, checked);
        TX_BYTE_AT(reg) = (uint8_t)(word >> (8u * (left & 2u)));
    }
}

_Static_assert(SOC_UART_TX_DEPTH % 4u == 0, "the empty TX FIFO takes whole words");

void send_bytes(const uint8_t *p, uint32_t n)
{
    uint32_t room = tx_room();
    tx_bytes(&room, SOC_UART_TX_WORD, p, 0, n, 1);
}

/* A frame of `end` bytes and its CRC from `frame` (its header made): START (TX_WORD), LEN and
   TYPE from lane 1 of the first word, then a word a store from the second word on (TX_CRC),
   then the CRC (TX_WORD), put behind the payload too (where it is kept for a resend).
   `checked`: the room is looked at before each store (see tx_room); else the frame fits the
   room the TX FIFO had. */
_Static_assert(PROTO_FRAME_LENGTH_OFFSET == 1u && PROTO_FRAME_TYPE_OFFSET == 3u,
               "the CRC starts at lane 1 of a frame's first word, TYPE ends it");
static inline __attribute__((always_inline)) void tx_frame_start(const uint8_t *frame,
                                                                 uint32_t *room, int checked)
{
    crc_start();
    tx_take(room, 1u, checked);
    TX_BYTE_AT(SOC_UART_TX_WORD) = frame[0];
    tx_take(room, 1u, checked);
    TX_BYTE_AT(SOC_UART_TX_CRC + 1u) = frame[1];
    tx_take(room, 2u, checked);
    TX_HALF_AT(SOC_UART_TX_CRC + 2u) = *(const uint16_t *)(const void *)(frame + 2);
}

static inline __attribute__((always_inline)) void tx_frame_end(uint8_t *frame, uint32_t end,
                                                               uint32_t *room, int checked)
{
    PROTO_PUT_FRAME_CRC_CRC(frame + end, crc_value());
    for (uint32_t k = end; k != end + PROTO_FRAME_CRC_SIZE; k++) {
        tx_take(room, 1u, checked);
        TX_BYTE_AT(SOC_UART_TX_WORD) = frame[k];
    }
}

static inline __attribute__((always_inline)) void tx_frame(uint8_t *frame, uint32_t end,
                                                           uint32_t room, int checked)
{
    tx_frame_start(frame, &room, checked);
    tx_bytes(&room, SOC_UART_TX_CRC, frame, 4u, end, checked);
    tx_frame_end(frame, end, &room, checked);
}

static __attribute__((noinline)) void tx_frame_checked(uint8_t *frame, uint32_t end,
                                                       uint32_t room)
{
    tx_frame(frame, end, room, 1);
}

/* START, LEN, TYPE, SEQ and CHECK at frame: the header of a `len`-byte payload. */
static inline __attribute__((always_inline)) void frame_header(uint8_t *frame, uint32_t type,
                                                               uint32_t seq, uint32_t len)
{
    PROTO_PUT_FRAME_START(frame, PROTO_START);
    PROTO_PUT_FRAME_LENGTH(frame, len);
    PROTO_PUT_FRAME_TYPE(frame, type);
    PROTO_PUT_FRAME_SEQ(frame, seq);
    PROTO_PUT_FRAME_CHECK(frame, header_check(frame));
}

uint32_t send_frame_at(uint8_t *frame, uint32_t type, uint32_t seq, uint32_t len)
{
    frame_header(frame, type, seq, len);
    uint32_t end = PROTO_FRAME_SIZE + len, room = tx_room();
    /* unchecked when every store finds room for a word: the bytes before the last at most
       the room less four */
    if (end + PROTO_FRAME_CRC_SIZE + 3u <= room)
        tx_frame(frame, end, room, 0);
    else
        tx_frame_checked(frame, end, room);
    return end + PROTO_FRAME_CRC_SIZE;
}

/* A reply sent as it is made: the frame's bytes queued so far (a word boundary). */
uint32_t tx_streamed;

void make_header(uint8_t *frame, uint32_t type, uint32_t seq, uint32_t len)
{
    frame_header(frame, type, seq, len);
}

void send_stream_open(const uint8_t *frame)
{
    uint32_t room = tx_room();
    tx_frame_start(frame, &room, 1);
    tx_streamed = 4u;
    send_stream_word(*(const uint32_t *)(const void *)(frame + 4));
}

uint32_t send_stream_close(uint8_t *frame, uint32_t len)
{
    uint32_t end = PROTO_FRAME_SIZE + len, room = 0;   /* looked at before each store */
    tx_bytes(&room, SOC_UART_TX_CRC, frame, tx_streamed, end, 1);
    tx_frame_end(frame, end, &room, 1);
    return end + PROTO_FRAME_CRC_SIZE;
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
    seen = REG(SOC_UART_RX_WRITTEN);
    head = wrap(seen);
    count = need = 0;
    rx_release();
    REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN_MASK | SOC_UART_STATUS_RX_FRAME_ERROR_MASK;
}

static __attribute__((noinline)) void skip_garbage(void)
{
    uint32_t skipped = 0;
    while (count && rxbuf[head] != PROTO_START) {
        head = wrap(head + 1);
        count--;
        skipped++;
    }
    if (skipped) {
        stats.garbage_bytes += skipped;
        rx_release();
    }
}

/* Drop the candidate at head (its START): count it, report it (see send_drop_error). */
static __attribute__((noinline, cold)) void drop(uint32_t code, uint32_t detail)
{
    stats.frames_bad++;
    rx_drop(1);
    send_drop_error(code, detail);
}

HOT_PATH int rx_poll(void)
{
    if (rx_drain()) {
        if (REG(SOC_UART_STATUS) & SOC_UART_STATUS_RX_OVERRUN_MASK) {
            REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN_MASK;
            send_drop_error(ERR_OVERRUN, 0);
        }
        return 1;
    }
    if (count && rxbuf[head] != PROTO_START)
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
/* The buffer's word that holds a SOLVE's first clue word (solve_clue_words). */
#define CLUE_WORD_AT ((PROTO_PAYLOAD_AT + PROTO_SOLVE_CLUES_OFFSET) / 4u)
_Static_assert((PROTO_PAYLOAD_AT + PROTO_SOLVE_CLUES_OFFSET) % 4u == 0, "the clues start a word");
_Static_assert(COPY_FROM > PROTO_FRAME_LENGTH_OFFSET, "the copy starts past START");

/* The longest payload a request of `type` may announce in this build. */
static uint32_t max_length(uint32_t type)
{
    /* SOLVE, and a type it does not know (UNKNOWN_TYPE): the build's largest request */
    return PROTO_REQUEST_LENGTH(type, PROTO_RX_PAYLOAD_MAX);
}

/* Copy the header of the candidate at head (its START; the header is in) into header[] and
   check it: 1 when it is good (need set), else 0. */
static inline int header_in(void)
{
    ring_at(head);   /* its first 8 bytes, the header's 6 among them, into header_words */
    uint32_t first = ring_word(), second = ring_word();
    header_words[0] = first << 24;
    header_words[1] = (first >> 8) | (second << 24);
    header_words[2] = second >> 8;
    uint32_t len = PROTO_GET_FRAME_LENGTH(header);
    if (header_check(header) != PROTO_GET_FRAME_CHECK(header)
        || len > max_length(PROTO_GET_FRAME_TYPE(header)))
        return 0;
    need = len + PROTO_OVERHEAD;
    return 1;
}

/* header_in(), and a bad header's candidate dropped (BAD_HEADER, BAD_LENGTH). */
static int header_good(void)
{
    if (header_in())
        return 1;
    uint32_t check = PROTO_GET_FRAME_CHECK(header);
    if (header_check(header) != check)
        drop(ERR_BAD_HEADER, check);
    else
        drop(ERR_BAD_LENGTH, 0);
    return 0;
}

/* The clue words of a frame of `type` and payload length `len` that RX_CLUE_WORD checks: a
   SOLVE's but the last (whose codes past the grid are not clues; serve.c checks it), as the
   payload's length counts them. */
static inline uint32_t clue_words_of(uint32_t type, uint32_t len)
{
    return type == MSG_SOLVE && len > PROTO_SOLVE_SIZE ? (len - PROTO_SOLVE_SIZE - 1u) / 4u : 0;
}

/* The bytes of the candidate in (counted or not), once at least `upto` are, waiting for
   them while they arrive (a read of RX_WRITTEN a look; the time of the last byte noted when
   one came): 0 when none came for the inter-byte timeout. */
static inline __attribute__((always_inline)) uint32_t rx_await(uint32_t upto)
{
    for (uint32_t looked = seen;;) {
        uint32_t now = REG(SOC_UART_RX_WRITTEN);
        uint32_t in = count + ((now - seen) & SOC_UART_RX_WRITTEN_COUNT_MASK);
        if (in >= upto)
            return in;
        if (now != looked) {
            looked = now;
            last_rx = cycles_lo();
        } else if (cycles_lo() - last_rx > timeout_cycles) {
            return 0;
        }
    }
}

/* The cut-through of a request that nothing else waits for (rx_next's wait): the candidate at
   head, its header good, still arriving; its payload's whole words copied into `into` as
   they arrive, fed to the CRC as rx_take does, the ring's reader pointed at each word anew
   (it reads ahead).  1 when the candidate is whole (its last bytes left to rx_take_frame),
   0 when it stopped in the middle (left to rx_scan's drop). */
static __attribute__((noinline)) int rx_arrive(payload_t *into)
{
    uint32_t len = PROTO_GET_FRAME_LENGTH(header), words = (PROTO_PAYLOAD_AT + len) / 4u;
    uint32_t clue_words = clue_words_of(PROTO_GET_FRAME_TYPE(header), len);
    uint32_t c0 = clue_words ? CLUE_WORD_AT : 0, c1 = c0 + clue_words;
    crc_start();
    REG(SOC_UART_CRC_DATA) = header_words[1];
    for (uint32_t k = 0, at = wrap(head + COPY_FROM); k != words; k++, at = wrap(at + 4u)) {
        if (!rx_await(COPY_FROM + 4u * k + 4u))
            return 0;
        ring_at(at);
        into->words[k] = REG(k - c0 < c1 - c0 ? SOC_UART_RX_CLUE_WORD : SOC_UART_RX_CRC_WORD);
    }
    uint32_t whole = rx_await(need);
    rx_drain();
    return whole != 0;
}

/* The whole candidate at head, its header good (header[]): its payload copied into `into`
   and its CRC checked (over LEN .. the header's end, the header's last PROTO_PAYLOAD_AT bytes
   copied before the payload, so that the payload is at its offset in the buffer); 1 when it
   is good (frame set, the candidate taken), else 0 (dropped: BAD_CRC).  `arrived`: its whole
   words were copied as they arrived (rx_arrive). */
_Static_assert(COPY_FROM == PROTO_FRAME_LENGTH_OFFSET + 4u,
               "the header's bytes before the copy are one word of header_words");
static __attribute__((noinline)) int rx_take_frame(frame_t *frame, payload_t *into,
                                                   int arrived)
{
    uint32_t len = PROTO_GET_FRAME_LENGTH(header);
    ring_at(wrap(head + PROTO_FRAME_SIZE + len));
    uint32_t trailer = ring_word();   /* the frame CRC's bytes in its low lanes */
    uint32_t got = PROTO_GET_FRAME_CRC_CRC((const uint8_t *)&trailer);
    frame->type = PROTO_GET_FRAME_TYPE(header);   /* before the copy: fewer values kept over it */
    frame->seq = PROTO_GET_FRAME_SEQ(header);
    frame->crc = (uint16_t)got;
    frame->len = len;
    frame->payload = payload_of(into);
    uint32_t clue_words = clue_words_of(frame->type, len);
    if (!arrived) {
        crc_start();
        REG(SOC_UART_CRC_DATA) = header_words[1];
    }
    rx_take(into->words, COPY_FROM, PROTO_PAYLOAD_AT + len, clue_words ? CLUE_WORD_AT : 0,
            clue_words, arrived);
    frame->clues_bad = REG(SOC_UART_CLUE_BAD);
    if (crc_value() != got) {
        drop(ERR_BAD_CRC, got);
        return 0;
    }
    rx_drop(need);
    stats.frames_good++;
    return 1;
}

/* rx_next() past its quick answer: a candidate's header is checked once, as soon as it is
   in (header_good; header_peek has checked a good one already); the candidate is taken when
   it may be whole. */
static __attribute__((noinline)) int rx_scan(frame_t *frame, payload_t *into)
{
    for (;;) {
        if (!need) {
            skip_garbage();
            if (count < PROTO_FRAME_SIZE) {   /* nothing, or a header not complete yet */
                if (count && stopped())
                    continue;
                return 0;
            }
            if (!header_good())
                continue;
        }
        if (count < need) {
            if (stopped())
                continue;
            return 0;
        }
        if (rx_take_frame(frame, into, 0))
            return 1;
    }
}

/* The header of the candidate at head when it is in and a START begins it: header_in(), a
   bad one left to rx_scan (its drop).  A leaf: rx_next() checks a header this way as soon as
   it is in, without rx_scan's cost while the rest of the frame is on its way. */
static __attribute__((noinline)) void header_peek(void)
{
    if (count >= PROTO_FRAME_SIZE && rxbuf[head] == PROTO_START)
        header_in();
}

HOT_PATH int rx_next(frame_t *frame, payload_t *into, int wait)
{
    if (!need)
        header_peek();
    int arrived = 0;
    if (need && (count >= need || (wait && (arrived = rx_arrive(into))))
        && rx_take_frame(frame, into, arrived))
        return 1;   /* the usual: a whole candidate, good */
    /* nothing buffered, or too few bytes for a header or for the candidate checked before,
       and no stop (the inter-byte timeout) yet: nothing to look at */
    if (count < (need ? need : PROTO_FRAME_SIZE)
        && (!count || cycles_lo() - last_rx <= timeout_cycles))
        return 0;
    return rx_scan(frame, into);
}

