/* Small arithmetic without the M extension (the CPU is RV32I). */
#ifndef ARITH_H
#define ARITH_H

#include <stdint.h>

/* a * b by shifts and adds: as many steps as b has bits (the empty asm keeps the
   optimizer from making it a multiplication, which RV32I would call a library for) */
static inline uint32_t mul_small(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    while (b) {
        if (b & 1u)
            product += a;
        a <<= 1;
        b >>= 1;
        __asm__("" : "+r"(a));
    }
    return product;
}

/* n / d (d > 0) by shift and subtract: 64 steps, for the rare division (SET_BAUD) */
static inline uint64_t div_u64(uint64_t n, uint32_t d)
{
    uint64_t quotient = 0, rest = 0;
    for (uint32_t i = 0; i < 64u; i++) {
        rest = (rest << 1) | (n >> 63);
        n <<= 1;
        quotient <<= 1;
        if (rest >= d) {
            rest -= d;
            quotient |= 1u;
        }
    }
    return quotient;
}

#endif
