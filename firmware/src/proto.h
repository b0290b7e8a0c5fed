/* The frames of the UART protocol (spec/protocol.py): the receiver with its header check
   and resynchronisation, and the transmitter.  What a request means is serve.c's. */
#ifndef PROTO_H
#define PROTO_H

#include <stdint.h>
#include "slk_protocol.h"
#include "slk_build.h"
#include "io.h"

/* The largest request payload this build takes (VERSION's max_payload): its largest SOLVE;
   SOLVE and unknown types may announce up to this many bytes. */
#define PROTO_RX_PAYLOAD_MAX PROTO_SOLVE_LENGTH(SLK_MAX_ROWS * SLK_MAX_COLS)

/* The largest reply payload: an ANSWER, a RESULT or a DEDUCE_RESULT of the largest grid
   (every other reply is shorter). */
#define PROTO_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define PROTO_TX_PAYLOAD_MAX PROTO_MAX_(PROTO_RESULT_LENGTH(SLK_MAX_ROWS * SLK_MAX_COLS), \
                                        PROTO_DEDUCE_RESULT_LENGTH(SLK_MAX_ROWS * SLK_MAX_COLS))
#define PROTO_TX_FRAME_MAX (PROTO_TX_PAYLOAD_MAX + PROTO_OVERHEAD)

/* n bytes rounded up to whole words: the size of a buffer copied a word at a time. */
#define PROTO_WORDS(n) (((n) + 3u) & ~3u)

/* A request payload's buffer (rx_next() copies a payload into one, whole words): the
   payload starts at byte PROTO_PAYLOAD_AT, so that a SOLVE's clues start a word and its clue
   words are read whole (solve_clue_word). */
#define PROTO_PAYLOAD_AT ((4u - PROTO_SOLVE_CLUES_OFFSET % 4u) % 4u)
typedef struct {
    uint32_t words[PROTO_WORDS(PROTO_PAYLOAD_AT + PROTO_RX_PAYLOAD_MAX) / 4u];
} payload_t;

/* The payload in buffer b. */
static inline const uint8_t *payload_of(const payload_t *b)
{
    return (const uint8_t *)b->words + PROTO_PAYLOAD_AT;
}

/* The clue words of the SOLVE payload p, a payload in its buffer (payload_t: the clues
   start a word); word k: the codes of cells 8k .. 8k + 7 (clues.h); codes past the clues are
   whatever the buffer holds there. */
static inline const uint32_t *solve_clue_words(const uint8_t *p)
{
    return (const uint32_t *)(const void *)(p + PROTO_SOLVE_CLUES_OFFSET);
}
static inline uint32_t solve_clue_word(const uint8_t *p, uint32_t k)
{
    return solve_clue_words(p)[k];
}

typedef struct {
    uint8_t type, seq;
    uint16_t crc;            /* the frame's CRC: with seq, what tells a resend */
    uint32_t len;
    const uint8_t *payload;  /* in the buffer rx_next() was given (payload_of) */
    uint32_t clues_bad;      /* a SOLVE: nonzero when a clue word but the last (as `len`
                                counts them) holds a code neither 0..3 nor a blank */
} frame_t;

/* The receiver's bit time: `cycles` whole clock cycles (its inter-byte timeout). */
void rx_timeout(uint32_t cycles);
/* Drop every byte received, those counted and those not yet (after a change of rate, when
   they mean nothing), and the receiver's sticky flags. */
void rx_clear(void);
/* Count the bytes received (the UART's ring, RX_WRITTEN; an overrun answered with ERROR
   OVERRUN).  Returns 1 while bytes are buffered (a candidate frame, or bytes not looked at
   yet). */
int rx_poll(void);
/* Count the bytes received, nothing else: before the next rx_next() of a loop serving
   requests, so the frames that arrived meanwhile are served too. */
void rx_service(void);
/* 1 when no byte is buffered and none arrived since the receiver last looked. */
int rx_quiet(void);
/* The next good frame in the buffer (1), or none yet (0).  Dropped candidate frames
   (CHECK wrong, LEN beyond the type's, bad CRC, or not whole and no byte for the inter-byte
   timeout) are answered with ERROR frames on the way, when the transmitter is idle.  A
   whole frame is never timed out, however long it waited in the buffer.  The payload is
   copied into `into` (which it may fill up to PROTO_RX_PAYLOAD_MAX whatever the frame).
   `wait`: nothing else is to be done meanwhile; a candidate whose header is in is taken as
   its bytes arrive (the copy keeps up with the line), and rx_next returns when it is whole,
   dropped or stopped. */
int rx_next(frame_t *frame, payload_t *into, int wait);

/* The payload of the next reply: fill it at the PROTO_* offsets, then send_frame(). */
extern uint8_t *const reply_payload;
/* Frame the `len` bytes at reply_payload as a message of `type` answering request `seq`
   and send it; while the TX FIFO is full, keep receiving.  Returns the frame's length. */
uint32_t send_frame(uint32_t type, uint32_t seq, uint32_t len);
/* The same for the `len` bytes at frame + PROTO_FRAME_SIZE, a reply built in a buffer of
   its own (word-aligned, PROTO_WORDS(PROTO_TX_FRAME_MAX) bytes): the frame is made there,
   whole. */
uint32_t send_frame_at(uint8_t *frame, uint32_t type, uint32_t seq, uint32_t len);
/* START, LEN, TYPE, SEQ and CHECK at frame: the header of a `len`-byte payload, as
   send_frame_at() makes it. */
void make_header(uint8_t *frame, uint32_t type, uint32_t seq, uint32_t len);
/* send_frame_at() for a reply sent as it is made, so that its first bytes are on the line
   while the rest is made: send_stream_open() sends the first 8 bytes of the frame at `frame`
   (its header made: make_header; the payload's first two bytes); send_stream_word() sends
   the next 4, a word of the frame as soon as it is made there; send_stream_close() the rest
   of the `len` payload bytes and the CRC, and returns the frame's length.  Nothing else is
   sent meanwhile. */
void send_stream_open(const uint8_t *frame);
uint32_t send_stream_close(uint8_t *frame, uint32_t len);
extern uint32_t tx_streamed;   /* the frame's bytes queued so far */
/* Wait until the TX FIFO has room for a word (STATUS.tx_word_ready). */
static inline void tx_word_room(void)
{
    while (!(REG(SOC_UART_STATUS) & SOC_UART_STATUS_TX_WORD_READY_MASK))
        ;
}
static inline void send_stream_word(uint32_t word)
{
    tx_word_room();
    REG(SOC_UART_TX_CRC) = word;
    tx_streamed += 4u;
}
/* Send the `n` bytes at p (word-aligned: a frame made before, a stored answer); keeps
   receiving likewise. */
void send_bytes(const uint8_t *p, uint32_t n);
/* An ERROR reply to a whole frame that is refused: always sent. */
void send_error(uint32_t code, uint32_t type, uint32_t seq, uint32_t detail);
/* STATS_REPLY: the receiver's counters, answering request `seq`. */
void send_stats(uint32_t seq);
/* 1 when everything has been sent. */
int tx_idle(void);

#endif
