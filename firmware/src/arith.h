/* Small arithmetic without the M extension (the CPU is RV32I). */
#ifndef ARITH_H
#define ARITH_H

#include <stdint.h>

/* a * b by shifts and adds: as many steps as b has bits */
static inline uint32_t mul_small(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    while (b) {
        if (b & 1u)
            product += a;
        a <<= 1;
        b >>= 1;
    }
    return product;
}

#endif
