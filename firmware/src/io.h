/* Memory-mapped I/O of the SoC (addresses from the generated slk_soc.h / slk_regs.h). */
#ifndef IO_H
#define IO_H

#include <stdint.h>
#include "slk_soc.h"
#include "slk_regs.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* A function on a hot path (every request's, or a search's loop over the engine's
   commands), inlined into its callers although the firmware is optimised for size
   (firmware/build.py's -Os), which would call it (docs/decisions: "The firmware is
   optimised as one program"). */
#define HOT_PATH __attribute__((always_inline))

/* accelerator registers (spec/registers.py, slk_regs.h) */
#define ACC(offset) REG(SLK_BASE + (offset))
#define ACC_CELL_PTR(r, c) ((volatile uint32_t *)(uintptr_t)(SLK_BASE + SLK_CELL_ADDR((r), (c))))

/* the free-running cycle counter: low word (latches the high word), then high */
static inline uint32_t cycles_lo(void) { return REG(SOC_SYSCTL_CYCLES_LO); }
/* the count whose low word was lo, the last low word read (the high word it latched) */
static inline uint64_t cycles_latched(uint32_t lo)
{
    return ((uint64_t)REG(SOC_SYSCTL_CYCLES_HI) << 32) | lo;
}
static inline uint64_t cycles64(void) { return cycles_latched(cycles_lo()); }

#endif
