/* The requests of the UART protocol (spec/protocol.py, "Requests and their replies"): the
   SOLVE queue, the answers kept for resends, PING, STATS, ABORT and SET_BAUD, served the
   same whether a search runs or not. */
#ifndef SERVE_H
#define SERVE_H

#include <stdint.h>
#include "proto.h"

/* What tells a resend: a request's SEQ and frame CRC, one word (compared in one step). */
static inline uint32_t request_key(uint32_t seq, uint32_t crc) { return (seq << 16) | crc; }
static inline uint32_t key_seq(uint32_t key) { return key >> 16; }

/* A SOLVE in the queue, validated: its key (request_key), its payload (payload_of(&r->buffer):
   the receiver copies it there). */
typedef struct {
    uint32_t key;
    uint32_t cells;   /* the grid's */
    uint32_t island;  /* a deduce-mode SOLVE's island_free() (rules.h), found as it arrives */
    payload_t buffer;
} request_t;

/* Start serving: version_flags are VERSION's flags (PROTO_VERSION_*_OK), the build's;
   the engines' ID registers as read (the details of NO_ACCELERATOR and NO_DEDUCE). */
void serve_init(uint32_t version_flags, uint32_t accelerator_id, uint32_t deduce_id);
/* Receive and answer requests while no search runs, until a SOLVE is queued or nothing is
   left to read; go back to the start rate when a new one was not confirmed in time.  Returns
   the SOLVE to run next (the head of the queue), or 0. */
const request_t *serve_poll(void);
/* Where the reply to the SOLVE at the head of the queue is built: the payload of the
   store's next slot, so that it is sent from there and kept without a copy. */
uint8_t *answer_payload(void);
/* While the search of the SOLVE at the head of the queue runs, with nothing queued behind
   it and no byte arriving: the header of its ANSWER with a colouring (the usual outcome; not
   when it asks for the counters) made ahead, for serve_alone(). */
void serve_ahead(void);
/* The SEQ of the SOLVE at the head of the queue when it is alone: nothing queued behind it,
   no reply waiting, no byte arriving; its ANSWER's header, of `len` payload bytes, made at
   answer_payload()'s frame (by serve_ahead, or now).  Its reply is then sent as it is made
   (send_stream_open ... send_stream_close): the host waits for it.  Else 0. */
uint32_t serve_alone(uint32_t len);
/* Take the reply built at answer_payload() (`type`, `len` bytes) to the SOLVE at the head
   of the queue, to be sent (serve_flush) unless it is `sent` already, keep it for a resend
   (unless an ABORT ended its search) and take the SOLVE off the queue. */
void serve_answer(uint32_t type, uint32_t len, int sent);
/* Send the reply serve_answer() took, if it is not sent yet (receiving first).  It waits
   for the next search: deduce_run() sends it as the engine starts, the paper's search
   before its load; or serve_poll() sends it when nothing is queued.  No other frame is
   sent before it. */
void serve_flush(void);

/* Serve the UART while a search runs: receive, answer PING and STATS, queue SOLVE (BUSY when
   the queue is full), answer a resend from the kept answers.  Returns nonzero when an ABORT
   arrived: the search then ends, the queue behind it is emptied and the kept answers are
   forgotten.  The searches call it every few thousand cycles (search.c, deduce.c). */
int serve_while_searching(void);

#endif
