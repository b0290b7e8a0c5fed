/* The UART protocol of spec/protocol.py: receiver with resynchronisation, replies. */
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

void proto_init(void);
/* Move received bytes into the frame buffer; fire the inter-byte timeout. */
void rx_poll(void);
/* The next good frame in the buffer (1), or none yet (0).  Dropped candidate
   frames (LEN too large, bad CRC) are answered with ERROR frames on the way. */
int rx_next(frame_t *frame);

void send_error(uint32_t code, uint32_t type, uint32_t detail);
void send_version(void);

#endif
