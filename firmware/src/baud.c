/* The line's rate: SET_BAUD's arithmetic and the switch (docs/protocol.md, SET_BAUD).
 *
 * The UART's DIVISOR register holds the bit time in the UART's clock cycles with
 * SOC_UART_DIVISOR_CYCLES_SHIFT fractional bits (spec.uart.bit_time_for); the UART's clock
 * is SOC_UART_CLOCK_RATIO times the design clock (SysCtl's CLOCK_HZ), so the rate asked
 * for is made to a fraction of a percent; the division is a shift-and-subtract (no M
 * extension).  A new rate is kept once a good frame arrives at it within clock_hz >>
 * PROTO_BAUD_CONFIRM_CYCLES_SHIFT design clock cycles; else the UART goes back to its start rate.  Each
 * switch clears the receive buffer: bytes at the old rate mean nothing at the new one.
 */
#include "baud.h"
#include "arith.h"
#include "io.h"
#include "proto.h"

#define FRACTION SOC_UART_DIVISOR_CYCLES_SHIFT
#define BIT_TIME_MASK (SOC_UART_DIVISOR_CYCLES_MASK | SOC_UART_DIVISOR_FRACTION_MASK)

static uint32_t uart_hz, start_baud, start_bit_time, max_baud, now;
static uint32_t switched_at, window;
uint32_t baud_confirming;   /* a new rate waits for a good frame (baud.h) */

/* whole design clock cycles of a bit time, rounded (the receive timeout counts them) */
static uint32_t cycles_of(uint32_t bit_time)
{
    return (bit_time + (SOC_UART_CLOCK_RATIO << (FRACTION - 1)))
           / (SOC_UART_CLOCK_RATIO << FRACTION);
}

/* round(a / b) of a 64-bit a: (2a + b) / 2b; one copy for the three rare uses */
static __attribute__((noinline)) uint64_t div_round(uint64_t a, uint32_t b)
{
    return div_u64((a << 1) + b, b << 1);
}

void baud_init(void)
{
    uint32_t clock_hz = REG(SOC_SYSCTL_CLOCK_HZ);
    uart_hz = clock_hz * SOC_UART_CLOCK_RATIO;
    start_baud = now = REG(SOC_SYSCTL_START_BAUD);
    max_baud = REG(SOC_SYSCTL_MAX_BAUD);
    start_bit_time = REG(SOC_UART_DIVISOR) & BIT_TIME_MASK;   /* its reset value */
    window = clock_hz >> PROTO_BAUD_CONFIRM_CYCLES_SHIFT;
    rx_timeout(cycles_of(start_bit_time));
}

uint32_t baud_now(void) { return now; }
uint32_t baud_start(void) { return start_baud; }
uint32_t baud_max(void) { return max_baud; }

uint32_t baud_bit_time(uint32_t baud)
{
    if (baud == 0 || baud > max_baud)   /* max_baud < 2^31: 2 * baud does not overflow */
        return 0;
    uint64_t bit_time = div_round((uint64_t)uart_hz << FRACTION, baud);
    if (bit_time < SOC_UART_MIN_BIT_TIME || bit_time > BIT_TIME_MASK)
        return 0;
    return (uint32_t)bit_time;
}

uint32_t baud_divisor(uint32_t baud)
{
    if (baud == 0 || baud >= 1u << 31)
        return 0;
    uint64_t cycles = div_round(uart_hz, baud);
    return cycles >> 16 ? 0 : (uint32_t)cycles;
}

uint32_t baud_made(uint32_t bit_time)
{
    return (uint32_t)div_round((uint64_t)uart_hz << FRACTION, bit_time);
}

static void set_rate(uint32_t bit_time, uint32_t baud)
{
    while (!tx_idle())
        ;
    REG(SOC_UART_DIVISOR) = bit_time;   /* at once: the host may send at the new rate now */
    rx_clear();
    now = baud;
    rx_timeout(cycles_of(bit_time));
}

void baud_switch(uint32_t bit_time, uint32_t baud)
{
    set_rate(bit_time, baud);
    baud_confirming = 1;
    switched_at = cycles_lo();
}

void baud_heard(void)
{
    baud_confirming = 0;
}

void baud_expire(void)
{
    if (cycles_lo() - switched_at > window) {
        baud_confirming = 0;
        set_rate(start_bit_time, start_baud);
    }
}
