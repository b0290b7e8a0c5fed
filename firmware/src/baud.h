/* The line's rate (SET_BAUD, spec/protocol.py; spec/uart.py): the UART's bit time from a
   rate, the switch, its confirmation window and the fallback to the start rate. */
#ifndef BAUD_H
#define BAUD_H

#include <stdint.h>

/* Read the build's rates and start the receiver at the start rate. */
void baud_init(void);
/* The rate now, the start rate, the fastest the build offers (VERSION). */
uint32_t baud_now(void);
uint32_t baud_start(void);
uint32_t baud_max(void);
/* The UART's DIVISOR for `baud` (spec.uart.set_baud_bit_time), or 0 when the build does not
   offer it: a bit time below SOC_UART_MIN_BIT_TIME, more than DIVISOR holds, or
   faster than baud_max(). */
uint32_t baud_bit_time(uint32_t baud);
/* Whole UART clock cycles a bit for `baud`, rounded (BAD_BAUD's detail): 0 beyond 16 bits. */
uint32_t baud_divisor(uint32_t baud);
/* The rate a DIVISOR of bit_time makes (spec.uart.baud_of). */
uint32_t baud_made(uint32_t bit_time);
/* Switch to bit_time (which makes `baud`, baud_made's) once the transmitter is idle (the
   BAUD reply has left at the old rate), clear the receive buffer and open the confirmation
   window.  Nothing slow runs between the reply's last bit and the switch: the host sends
   at the new rate as soon as it has the reply. */
void baud_switch(uint32_t bit_time, uint32_t baud);
/* A good frame arrived: the rate now is kept. */
void baud_heard(void);
/* Back to the start rate (and a clear receive buffer) when the window closed unconfirmed
   (baud_expire: while a new rate waits for its confirmation). */
extern uint32_t baud_confirming;
void baud_expire(void);
static inline void baud_poll(void)
{
    if (baud_confirming)
        baud_expire();
}

#endif
