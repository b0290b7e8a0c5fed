/* The UART protocol of spec/protocol.py: the receiver with resynchronisation, the
   transmitter, and the requests served the same whether a search runs or not. */
#ifndef PROTO_H
#define PROTO_H

#include <stdint.h>
#include "slk_protocol.h"
#include "slk_build.h"

typedef struct {
    uint8_t type;
    uint32_t len;
    const uint8_t *payload;  /* a copy (the largest SOLVE of the build at most), valid until the next rx_next() */
} frame_t;

/* Start the receiver; version_flags are VERSION's flags (PROTO_VERSION_*_OK), the build's. */
void proto_init(uint32_t version_flags);
/* Move received bytes into the frame buffer; fire the inter-byte timeout. */
void rx_poll(void);
/* The next good frame in the buffer (1), or none yet (0).  Dropped candidate
   frames (LEN too large, bad CRC) are answered with ERROR frames on the way. */
int rx_next(frame_t *frame);

/* The payload of the next reply: fill it at the PROTO_* offsets, then send_frame(). */
extern uint8_t *const reply_payload;
/* Frame the `len` bytes at reply_payload as a message of `type` and send it; while the
   TX FIFO is full, keep receiving. */
void send_frame(uint32_t type, uint32_t len);
/* An ERROR reply to a whole frame that is refused: always sent. */
void send_error(uint32_t code, uint32_t type, uint32_t detail);

/* Answer a request whose answer is the same whether a search runs or not: PING (VERSION),
   STATS, ABORT while idle (NOT_BUSY), an unknown type; SOLVE is the caller's. */
void answer_common(const frame_t *frame);

/* Serve the UART while a search runs: receive, answer PING and STATS, refuse SOLVE (BUSY).
   Returns nonzero when an ABORT arrived: the search then ends.  The search calls it every
   few thousand cycles (search.c, deduce.c). */
int serve_while_searching(void);

#endif
