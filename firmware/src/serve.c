/* The requests (docs/protocol.md, "Requests and their replies").
 *
 * A SOLVE is validated when it arrives (its ERROR at once) and queued: the queue holds
 * SLK_QUEUE_DEPTH requests, the one being solved at its head; one more gets ERROR BUSY.
 * The answers to the last PROTO_STORE_DEPTH SOLVEs are kept, whole frames, so a SOLVE that
 * comes again (the same SEQ and frame CRC: the host lost the answer) gets the same bytes
 * again without a search; one that comes again while it is queued or solved is dropped
 * (its answer is on its way).  RESEND names a SOLVE by its SEQ and CRC: its kept answer is
 * sent again, or ERROR PENDING (queued or solved now) or UNKNOWN_SEQ (not here).  ABORT ends the running search (its reply carries the
 * ABORTED flag and is not kept), empties the queue behind it and forgets the kept answers.
 * SET_BAUD is served only while nothing is queued (baud.c switches).  PING and STATS are
 * answered at any time.
 *
 * Each frame is received into the queue's next free slot (a SOLVE queued stays there), or
 * into a spare buffer when the queue is full.  The reply to a SOLVE is built in the store's
 * next slot (answer_payload), sent from there and kept there: never copied.  It is sent
 * while the next search runs (serve_flush: the CPU has nothing else to do then), or, when
 * nothing is queued behind its SOLVE, as it is made (serve_alone).
 *
 * While no search runs, serve_poll() reads requests until one SOLVE is queued, so main.c
 * starts it at once; the frames behind it wait in the receiver until the search's first
 * call of serve_while_searching().
 */
#include "serve.h"
#include "baud.h"
#include "clues.h"
#include "io.h"
#include "rules.h"

/* A reply kept for a resend: the request's key (request_key), the whole reply frame. */
typedef struct {
    uint32_t key;
    uint32_t len;
    uint8_t frame[PROTO_WORDS(PROTO_TX_FRAME_MAX)] __attribute__((aligned(4)));
} answer_t;

static request_t queue[SLK_QUEUE_DEPTH];
static payload_t spare;               /* a frame's payload while the queue is full */
static uint32_t queue_head, queued;   /* queued requests, a ring from queue_head on */
static int aborting;                  /* an ABORT ended the running search */
static answer_t store[PROTO_STORE_DEPTH];
static uint32_t stored, store_next;   /* answers kept in store[0 .. stored); the next slot */
static uint32_t version, accelerator_id_read, deduce_id_read;
/* How many of the queued SOLVEs and kept answers have each SEQ: a SOLVE whose SEQ none has
   (the usual: a new one) is neither queued nor kept, without a look at either. */
static uint8_t held[256];
/* floor(n * n / 4) for n up to the largest grid's rows + columns, made by serve_init: a grid's
   cells are quarter_square[rows + cols] - quarter_square[|rows - cols|], two loads where
   mul_small takes a step a bit of the columns */
static uint16_t quarter_square[SLK_MAX_ROWS + SLK_MAX_COLS + 1];
_Static_assert((SLK_MAX_ROWS + SLK_MAX_COLS) * (SLK_MAX_ROWS + SLK_MAX_COLS) / 4 <= 0xFFFFu,
               "a quarter square fits 16 bits");
_Static_assert(SLK_QUEUE_DEPTH + PROTO_STORE_DEPTH < 256, "a count of held fits a byte");

static uint32_t queue_slot(uint32_t i)
{
    i += queue_head;
    return i >= SLK_QUEUE_DEPTH ? i - SLK_QUEUE_DEPTH : i;
}

void serve_init(uint32_t version_flags, uint32_t accelerator_id, uint32_t deduce_id)
{
    for (uint32_t n = 1, square = 0; n < sizeof quarter_square / sizeof quarter_square[0];
         n++) {
        square += 2u * n - 1u;   /* n * n */
        quarter_square[n] = (uint16_t)(square >> 2);
    }
    version = version_flags;
    accelerator_id_read = accelerator_id;
    deduce_id_read = deduce_id;
    baud_init();
}

uint8_t *answer_payload(void)
{
    return store[store_next].frame + PROTO_FRAME_SIZE;
}

/* The reply answered last and not sent yet (serve_answer): its frame (0: none), type, SEQ
   and payload length. */
static struct {
    uint8_t *frame;
    uint32_t type, seq, len;
} unsent;

HOT_PATH void serve_flush(void)
{
    if (unsent.frame) {
        send_frame_at(unsent.frame, unsent.type, unsent.seq, unsent.len);
        unsent.frame = 0;
    }
}

/* The header serve_ahead() made (a frame's first two words; the store's slot keeps the
   answer it holds until the reply is made there) and its payload length, or 0. */
static uint32_t ahead[2], ahead_len;
_Static_assert(PROTO_FRAME_SIZE == 6u, "a header is a word and a half-word");

void serve_ahead(void)
{
    const request_t *r = &queue[queue_head];
    ahead_len = 0;
    if (queued == 1 && rx_quiet()
        && !(PROTO_GET_SOLVE_FLAGS(payload_of(&r->buffer)) & PROTO_FLAG_COUNTERS)) {
        ahead_len = PROTO_ANSWER_LENGTH(r->cells);
        make_header((uint8_t *)ahead, MSG_ANSWER, key_seq(r->key), ahead_len);
    }
}

uint32_t serve_alone(uint32_t len)
{
    if (queued != 1 || unsent.frame || !rx_quiet())
        return 0;
    uint32_t seq = key_seq(queue[queue_head].key);
    uint8_t *frame = store[store_next].frame;
    if (len == ahead_len) {   /* the header's bytes; the payload's first two are the caller's */
        ((uint32_t *)(void *)frame)[0] = ahead[0];
        ((uint16_t *)(void *)frame)[2] = (uint16_t)ahead[1];
    } else {
        make_header(frame, MSG_ANSWER, seq, len);
    }
    return seq;
}

HOT_PATH void serve_answer(uint32_t type, uint32_t len, int sent)
{
    const request_t *r = &queue[queue_head];
    answer_t *a = &store[store_next];   /* nothing reads it between the reply's build and
                                           its send: no request is served meanwhile */
    unsent.frame = sent ? 0 : a->frame;
    unsent.type = type;
    unsent.seq = key_seq(r->key);
    unsent.len = len;
    held[key_seq(r->key)]--;                  /* off the queue... */
    if (!aborting) {
        if (stored == PROTO_STORE_DEPTH)
            held[key_seq(a->key)]--;           /* the oldest kept answer forgotten */
        held[key_seq(r->key)]++;               /* ...and kept */
        a->key = r->key;
        a->len = PROTO_FRAME_SIZE + len + PROTO_FRAME_CRC_SIZE;   /* send_frame_at's */
        store_next = store_next + 1 == PROTO_STORE_DEPTH ? 0 : store_next + 1;
        if (stored < PROTO_STORE_DEPTH)
            stored++;
    }
    aborting = 0;
    queue_head = queue_slot(1);
    queued--;
}

/* ---- SOLVE --------------------------------------------------------------------- */

/* The place in the queue of the SOLVE of key `key` (request_key; 0: being solved), or -1. */
static int queue_place(uint32_t key)
{
    const request_t *r = &queue[queue_head];
    for (uint32_t i = 0; i < queued; i++) {
        if (r->key == key)
            return (int)i;
        if (++r == queue + SLK_QUEUE_DEPTH)
            r = queue;
    }
    return -1;
}

static const answer_t *kept(uint32_t key)
{
    for (const answer_t *a = store; a != store + stored; a++)
        if (a->key == key)
            return a;
    return 0;
}

static __attribute__((noinline)) int refuse(uint32_t code, const frame_t *f, uint32_t detail)
{
    send_error(code, MSG_SOLVE, f->seq, detail);
    return 1;
}

/* The first cell whose code is bad (there is one) of the SOLVE payload p of `cells` cells. */
static __attribute__((noinline)) uint32_t first_bad_cell(const uint8_t *p, uint32_t cells)
{
    uint32_t k = 0, bad;
    while (!(bad = clue_bad(solve_clue_word(p, k)) & clue_cells(k, cells)))
        k++;
    return CLUES_PER_WORD * k + clue_first(bad);
}

/* Checked in host.protocol.decode_solve's order (docs/protocol.md), inlined into serve_solve
   (one register save for both); 1 when refused (its ERROR sent); else the grid's cells in
   *cells.  The clue words but the last were checked by the UART as they were received
   (frame_t's clues_bad); the bad cell is looked for only in a refused SOLVE. */
static inline __attribute__((always_inline)) int refused(const frame_t *f, uint32_t *cells_out)
{
    const uint8_t *p = f->payload;
    if (f->len < PROTO_SOLVE_SIZE)
        return refuse(ERR_BAD_LENGTH, f, PROTO_SOLVE_SIZE);
    uint32_t rows = PROTO_GET_SOLVE_ROWS(p), cols = PROTO_GET_SOLVE_COLS(p);
    uint32_t flags = PROTO_GET_SOLVE_FLAGS(p);
    uint32_t size = (rows << 8) | cols;
    if (rows == 0 || cols == 0)
        return refuse(ERR_BAD_SIZE, f, size);
    if (rows > SLK_MAX_ROWS || cols > SLK_MAX_COLS)
        return refuse(ERR_TOO_LARGE, f, size);
    uint32_t cells = quarter_square[rows + cols]
                     - quarter_square[rows > cols ? rows - cols : cols - rows];
    uint32_t expected = PROTO_SOLVE_LENGTH(cells);
    if (f->len != expected)
        return refuse(ERR_BAD_LENGTH, f, expected);
    if (flags & ~PROTO_SOLVE_FLAGS)
        return refuse(ERR_BAD_FLAGS, f, flags);
    /* every word whole but the last: checked as it was received (rx_take_frame: the length
       checked above is the one it counted them by) */
    uint32_t last = (cells - 1u) / CLUES_PER_WORD;
    if (f->clues_bad || (clue_bad(solve_clue_word(p, last)) & clue_cells(last, cells)))
        return refuse(ERR_BAD_CLUE, f, first_bad_cell(p, cells));
    if (flags & PROTO_FLAG_DEDUCE) {
        if (!(version & PROTO_VERSION_DEDUCE_OK))
            return refuse(ERR_NO_DEDUCE, f, deduce_id_read);
    } else if (!(version & PROTO_VERSION_ACCEL_OK)) {
        return refuse(ERR_NO_ACCELERATOR, f, accelerator_id_read);
    }
    *cells_out = cells;
    return 0;
}

static __attribute__((noinline)) void serve_solve(const frame_t *f)
{
    uint32_t key = request_key(f->seq, f->crc);
    if (held[f->seq]) {
        if (queue_place(key) >= 0)
            return;
        const answer_t *a = kept(key);
        if (a) {
            send_bytes(a->frame, a->len);
            return;
        }
    }
    uint32_t cells;
    if (refused(f, &cells))
        return;
    if (queued == SLK_QUEUE_DEPTH) {
        send_error(ERR_BUSY, MSG_SOLVE, f->seq, 0);
        return;
    }
    request_t *r = &queue[queue_slot(queued)];   /* its payload is there (receive) */
    r->key = key;
    r->cells = cells;
    const uint8_t *p = f->payload;
    r->island = (PROTO_GET_SOLVE_FLAGS(p) & PROTO_FLAG_DEDUCE)
                && island_free(PROTO_GET_SOLVE_COLS(p), cells, solve_clue_words(p));
    held[f->seq]++;
    queued++;
}

/* RESEND: the stored answer to the SOLVE it names again, else where that SOLVE is. */
static __attribute__((noinline)) void serve_resend(const frame_t *f)
{
    if (f->len != PROTO_RESEND_SIZE) {
        send_error(ERR_BAD_LENGTH, MSG_RESEND, f->seq, PROTO_RESEND_SIZE);
        return;
    }
    uint32_t key = request_key(f->seq, PROTO_GET_RESEND_CRC(f->payload));
    const answer_t *a = kept(key);
    if (a) {
        send_bytes(a->frame, a->len);
        return;
    }
    int place = queue_place(key);
    if (place >= 0)
        send_error(ERR_PENDING, MSG_RESEND, f->seq, (uint32_t)place);
    else
        send_error(ERR_UNKNOWN_SEQ, MSG_RESEND, f->seq, 0);
}

/* ---- the other requests ------------------------------------------------------------ */

static __attribute__((noinline)) void send_version(uint32_t seq)
{
    PROTO_PUT_VERSION_PROTOCOL(reply_payload, PROTO_VERSION);
    PROTO_PUT_VERSION_REGMAP(reply_payload, SLK_REGMAP_VERSION);
    PROTO_PUT_VERSION_MAX_ROWS(reply_payload, SLK_MAX_ROWS);
    PROTO_PUT_VERSION_MAX_COLS(reply_payload, SLK_MAX_COLS);
    PROTO_PUT_VERSION_CLOCK_HZ(reply_payload, REG(SOC_SYSCTL_CLOCK_HZ));
    PROTO_PUT_VERSION_BAUD(reply_payload, baud_now());
    PROTO_PUT_VERSION_START_BAUD(reply_payload, baud_start());
    PROTO_PUT_VERSION_MAX_BAUD(reply_payload, baud_max());
    PROTO_PUT_VERSION_MAX_PAYLOAD(reply_payload, PROTO_RX_PAYLOAD_MAX);
    PROTO_PUT_VERSION_QUEUE(reply_payload, SLK_QUEUE_DEPTH);
    PROTO_PUT_VERSION_FLAGS(reply_payload, version);
    send_frame(MSG_VERSION, seq, PROTO_VERSION_SIZE);
}

/* SET_BAUD: BAUD at the old rate, then the switch (baud.c). */
static __attribute__((noinline)) void set_baud(const frame_t *f, int searching)
{
    if (f->len != PROTO_SET_BAUD_SIZE) {
        send_error(ERR_BAD_LENGTH, MSG_SET_BAUD, f->seq, PROTO_SET_BAUD_SIZE);
        return;
    }
    if (searching || queued) {
        send_error(ERR_BUSY, MSG_SET_BAUD, f->seq, 0);
        return;
    }
    uint32_t baud = PROTO_GET_SET_BAUD_BAUD(f->payload);
    uint32_t bit_time = baud_bit_time(baud);
    if (!bit_time) {
        send_error(ERR_BAD_BAUD, MSG_SET_BAUD, f->seq, baud_divisor(baud));
        return;
    }
    uint32_t made = baud_made(bit_time);
    PROTO_PUT_BAUD_BAUD(reply_payload, made);
    PROTO_PUT_BAUD_DIVISOR(reply_payload,
                           (bit_time + (1u << (SOC_UART_DIVISOR_CYCLES_SHIFT - 1)))
                           >> SOC_UART_DIVISOR_CYCLES_SHIFT);
    send_frame(MSG_BAUD, f->seq, PROTO_BAUD_SIZE);
    baud_switch(bit_time, made);
}

/* The next good frame received (1), its payload in the queue's next free slot; or none.
   `idle`: no search runs and nothing is queued, so a frame on its way is taken as it
   arrives (rx_next's wait). */
static inline HOT_PATH int receive(frame_t *f, int idle)
{
    return rx_next(f, queued < SLK_QUEUE_DEPTH ? &queue[queue_slot(queued)].buffer : &spare,
                   idle);
}

static void serve_request(const frame_t *f, int searching)
{
    switch (f->type) {
    case MSG_SOLVE:
        serve_solve(f);
        break;
    case MSG_RESEND:
        serve_resend(f);
        break;
    case MSG_PING:
        send_version(f->seq);
        break;
    case MSG_STATS:
        send_stats(f->seq);
        break;
    case MSG_ABORT:        /* while a search runs, serve_searching() ends it */
        send_error(ERR_NOT_BUSY, MSG_ABORT, f->seq, 0);
        break;
    case MSG_SET_BAUD:
        set_baud(f, searching);
        break;
    default:
        send_error(ERR_UNKNOWN_TYPE, f->type, f->seq, f->type);
    }
}

const request_t *serve_poll(void)
{
    if (!queued) {   /* else the next search starts at once and receives as it starts */
        frame_t f;
        serve_flush();   /* no search to send it behind */
        rx_poll();
        while (!queued && receive(&f, 1)) {
            baud_heard();   /* a good frame at the rate now: it is kept */
            serve_request(&f, 0);
            rx_service();   /* and the frames that arrived meanwhile */
        }
    }
    baud_poll();
    return queued ? &queue[queue_head] : 0;
}

/* The frames one serve_while_searching() takes at most: requests that come faster than
   their replies can leave (a flood of RESENDs, each answered by a longer ERROR) would
   otherwise keep it serving, and the search waiting for it, as long as they come.  The
   frames left wait in the ring for the next serve, a couple of thousand cycles later. */
#define FRAMES_PER_SERVE 2u

/* The frames received while a search runs; 1 when an ABORT ends it. */
static __attribute__((noinline)) int serve_searching(void)
{
    frame_t f;
    serve_flush();   /* before any other reply, and before a RESEND may send its frame */
    for (uint32_t served = 0; served != FRAMES_PER_SERVE && receive(&f, 0); served++) {
        if (f.type == MSG_ABORT) {
            aborting = 1;
            queued = 1;          /* the running search: its reply is still to come */
            stored = store_next = 0;
            for (uint32_t i = 0; i < sizeof held; i++)
                held[i] = 0;
            held[key_seq(queue[queue_head].key)] = 1;
            return 1;
        }
        serve_request(&f, 1);
        rx_service();   /* and the frames that arrived meanwhile */
    }
    return 0;
}

int serve_while_searching(void)
{
    if (!rx_poll())
        return 0;   /* the usual case: nothing received */
    return serve_searching();
}
