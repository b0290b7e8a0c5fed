/* SoC firmware: serves the UART protocol (host/protocol.py) and runs the search.
 *
 * The receiver keeps the bytes of the current candidate frame in a buffer and
 * resynchronises exactly like host.protocol.FrameDecoder: a candidate starts
 * at a START byte; when it fails (LEN too large, bad CRC, inter-byte timeout)
 * it is answered with an ERROR frame and the scan restarts at the byte after
 * its START, so a valid frame behind garbage or a truncated frame is found.
 */
#include "io.h"
#include "proto.h"
#include "search.h"

#define RXBUF (PROTO_MAX_PAYLOAD + PROTO_OVERHEAD)

static uint8_t rxbuf[RXBUF];
static uint32_t head, avail;          /* the candidate is rxbuf[head .. avail) */
static uint32_t last_rx, timeout_cycles;
static uint32_t tx_crc;
static search_result_t result;

/* ---- CRC-16/CCITT-FALSE ---------------------------------------------------- */

static inline uint32_t crc_step(uint32_t crc, uint32_t byte)
{
    return ((crc << 8) & 0xFFFFu) ^ proto_crc_table[((crc >> 8) ^ byte) & 0xFFu];
}

static uint32_t crc16(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xFFFFu;
    while (n--)
        crc = crc_step(crc, *p++);
    return crc;
}

/* ---- small arithmetic without the M extension ------------------------------- */

static uint32_t mul_small(uint32_t a, uint32_t b)
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

/* ---- transmitter ------------------------------------------------------------- */

__attribute__((noinline)) void tx_byte(uint8_t byte)
{
    uart_put(byte);
    tx_crc = crc_step(tx_crc, byte);
}

void tx_begin(uint8_t type, uint32_t len)
{
    uart_put(PROTO_START);
    tx_crc = 0xFFFFu;
    tx_byte((uint8_t)len);
    tx_byte((uint8_t)(len >> 8));
    tx_byte(type);
}

void tx_u16(uint32_t v) { tx_byte((uint8_t)v); tx_byte((uint8_t)(v >> 8)); }
void tx_u32(uint32_t v) { tx_u16(v); tx_u16(v >> 16); }
void tx_u64(uint64_t v) { tx_u32((uint32_t)v); tx_u32((uint32_t)(v >> 32)); }

void tx_end(void)
{
    uint32_t crc = tx_crc;
    uart_put((uint8_t)crc);
    uart_put((uint8_t)(crc >> 8));
}

void send_error(uint32_t code, uint32_t type, uint32_t detail)
{
    tx_begin(MSG_ERROR, PROTO_ERROR_PAYLOAD);
    tx_byte((uint8_t)code);
    tx_byte((uint8_t)type);
    tx_u16(detail);
    tx_end();
}

void send_version(void)
{
    tx_begin(MSG_VERSION, PROTO_VERSION_PAYLOAD);
    tx_byte(PROTO_VERSION);
    tx_byte(SLK_REGMAP_VERSION);
    tx_byte(SLK_MAX_ROWS);
    tx_byte(SLK_MAX_COLS);
    tx_u32(REG(SOC_SYSCTL_CLOCK_HZ));
    tx_u32(REG(SOC_SYSCTL_BAUD));
    tx_u16(PROTO_MAX_PAYLOAD);
    tx_byte(accelerator_ok() ? PROTO_VERSION_ACCEL_OK : 0);
    tx_end();
}

/* ---- receiver ---------------------------------------------------------------- */

void proto_init(void)
{
    /* PROTO_TIMEOUT_BYTE_TIMES byte times of 10 bits */
    timeout_cycles = mul_small(REG(SOC_SYSCTL_UART_DIVISOR), PROTO_TIMEOUT_BYTE_TIMES * 10u);
    head = avail = 0;
    last_rx = cycles_lo();
    REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN | SOC_UART_STATUS_RX_FRAME_ERROR;
}

static void skip_garbage(void)
{
    while (head < avail && rxbuf[head] != PROTO_START)
        head++;
    if (head == avail)
        head = avail = 0;
}

void rx_poll(void)
{
    int got = 0;
    for (;;) {
        if (avail == RXBUF) {
            if (head == 0)
                break;  /* rx_next() consumes the buffer first */
            uint32_t n = avail - head;
            for (uint32_t i = 0; i < n; i++)
                rxbuf[i] = rxbuf[head + i];
            head = 0;
            avail = n;
        }
        uint32_t word = REG(SOC_UART_DATA);
        if (word & SOC_UART_DATA_EMPTY)
            break;
        rxbuf[avail++] = (uint8_t)word;
        got = 1;
    }
    if (got) {
        last_rx = cycles_lo();
        if (REG(SOC_UART_STATUS) & SOC_UART_STATUS_RX_OVERRUN) {
            REG(SOC_UART_STATUS) = SOC_UART_STATUS_RX_OVERRUN;
            send_error(ERR_OVERRUN, 0, 0);
        }
        return;
    }
    skip_garbage();
    if (head < avail && cycles_lo() - last_rx > timeout_cycles) {
        /* a frame stopped in the middle: drop its START, rescan the rest */
        send_error(ERR_TIMEOUT, 0, 0);
        head++;
    }
}

int rx_next(frame_t *frame)
{
    for (;;) {
        skip_garbage();
        uint32_t have = avail - head;
        if (have < 3)
            return 0;
        uint32_t len = rxbuf[head + 1] | ((uint32_t)rxbuf[head + 2] << 8);
        if (len > PROTO_MAX_PAYLOAD) {
            send_error(ERR_BAD_LENGTH, 0, 0);
            head++;
            continue;
        }
        uint32_t total = len + PROTO_OVERHEAD;
        if (have < total)
            return 0;
        uint32_t got = rxbuf[head + total - 2] | ((uint32_t)rxbuf[head + total - 1] << 8);
        if (crc16(&rxbuf[head + 1], len + 3) != got) {
            send_error(ERR_BAD_CRC, 0, got);
            head++;
            continue;
        }
        frame->type = rxbuf[head + 3];
        frame->len = len;
        frame->payload = &rxbuf[head + 4];
        head += total;
        return 1;
    }
}

/* ---- requests ------------------------------------------------------------------ */

/* Requests that are answered the same way whether a search runs or not. */
static void handle_common(const frame_t *f)
{
    if (f->type == MSG_PING || f->type == MSG_ABORT) {
        if (f->len != 0)
            send_error(ERR_BAD_LENGTH, f->type, 0);
        else if (f->type == MSG_PING)
            send_version();
        else
            send_error(ERR_NOT_BUSY, f->type, 0);
    } else {
        send_error(ERR_UNKNOWN_TYPE, f->type, f->type);
    }
}

/* During a search: PING is answered, SOLVE is BUSY, ABORT ends the search. */
int search_poll(void)
{
    frame_t f;
    rx_poll();
    while (rx_next(&f)) {
        if (f.type == MSG_ABORT && f.len == 0)
            return 1;
        if (f.type == MSG_SOLVE)
            send_error(ERR_BUSY, MSG_SOLVE, 0);
        else
            handle_common(&f);
    }
    return 0;
}

static void send_result(uint32_t rows, uint32_t cols, uint32_t unique, uint64_t cycles)
{
    uint32_t status;
    if (result.found >= 2)
        status = STATUS_MULTIPLE;
    else if (result.found == 1)
        status = (unique && result.exhausted) ? STATUS_SOLVED_UNIQUE : STATUS_SOLVED;
    else
        status = result.exhausted ? STATUS_NO_SOLUTION : STATUS_LIMIT;
    uint32_t bits = result.found ? (mul_small(rows, cols) + 7u) >> 3 : 0;
    tx_begin(MSG_RESULT, PROTO_RESULT_HEADER + bits);
    tx_byte((uint8_t)status);
    tx_byte((uint8_t)((result.aborted ? PROTO_RESULT_ABORTED : 0)
                      | (unique ? PROTO_RESULT_UNIQUE : 0)));
    tx_byte((uint8_t)rows);
    tx_byte((uint8_t)cols);
    tx_u64(result.counters.checks);
    tx_u64(result.counters.backtracks);
    tx_u64(result.counters.candidates);
    tx_u64(result.counters.floods);
    tx_u64(result.counters.flood_iterations);
    tx_u64(cycles);
    for (uint32_t i = 0; i < bits; i++)
        tx_byte(result.solution[i]);
    tx_end();
}

/* SOLVE: validated in host.protocol.decode_solve's order, then searched. */
static void handle_solve(const frame_t *f)
{
    const uint8_t *p = f->payload;
    if (f->len < PROTO_SOLVE_HEADER) {
        send_error(ERR_BAD_LENGTH, MSG_SOLVE, PROTO_SOLVE_HEADER);
        return;
    }
    uint32_t rows = p[0], cols = p[1], flags = p[2];
    uint32_t max_checks = p[3] | ((uint32_t)p[4] << 8) | ((uint32_t)p[5] << 16)
                        | ((uint32_t)p[6] << 24);
    uint32_t size = (rows << 8) | cols;
    if (rows == 0 || cols == 0) {
        send_error(ERR_BAD_SIZE, MSG_SOLVE, size);
        return;
    }
    if (rows > SLK_MAX_ROWS || cols > SLK_MAX_COLS) {
        send_error(ERR_TOO_LARGE, MSG_SOLVE, size);
        return;
    }
    uint32_t cells = mul_small(rows, cols);
    uint32_t expected = PROTO_SOLVE_HEADER + ((cells + 1u) >> 1);
    if (f->len != expected) {
        send_error(ERR_BAD_LENGTH, MSG_SOLVE, expected);
        return;
    }
    if (flags & ~PROTO_SOLVE_FLAGS) {
        send_error(ERR_BAD_FLAGS, MSG_SOLVE, flags);
        return;
    }
    const uint8_t *codes = p + PROTO_SOLVE_HEADER;
    for (uint32_t i = 0; i < cells; i++) {
        uint32_t code = (codes[i >> 1] >> ((i & 1u) << 2)) & 0xFu;
        if (code > 3u && code != PROTO_CLUE_BLANK) {
            send_error(ERR_BAD_CLUE, MSG_SOLVE, i);
            return;
        }
    }
    if (!accelerator_ok()) {
        send_error(ERR_NO_ACCELERATOR, MSG_SOLVE, accelerator_id());
        return;
    }
    uint32_t unique = flags & PROTO_FLAG_UNIQUE;
    search_load(rows, cols, codes);           /* the frame's bytes are not used after this */
    uint64_t start = cycles64();              /* "puzzle loaded" */
    search_run(unique ? 2u : 1u, max_checks ? max_checks : 0xFFFFFFFFu, &result);
    uint64_t cycles = cycles64() - start;     /* "answer ready" */
    send_result(rows, cols, unique, cycles);
}

int main(void)
{
    proto_init();
    for (;;) {
        frame_t f;
        rx_poll();
        while (rx_next(&f)) {
            if (f.type == MSG_SOLVE)
                handle_solve(&f);
            else
                handle_common(&f);
        }
    }
}
