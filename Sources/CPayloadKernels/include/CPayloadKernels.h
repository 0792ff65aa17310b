#ifndef YUI_CPAYLOADKERNELS_H
#define YUI_CPAYLOADKERNELS_H

// The few inner loops of `payload-tool rows` that want CPU instructions Swift does not reach:
// SHA-1 rounds (row keys) and 16-byte scans over JSON text. Each has a portable Swift or C
// counterpart that gives the same answers.

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the x86 SHA extensions (and SSSE3/SSE4.1, which the rounds also use).
/// Always 0 on other architectures.
int yui_sha1_hardware_available(void);

/// SHA-1's compression function over `blocks` consecutive 64-byte blocks at `data`, updating
/// `state` (the five chaining words, h0 first), with the SHA instructions. Call only when
/// `yui_sha1_hardware_available()` said 1.
void yui_sha1_hardware_compress(uint32_t state[5], const uint8_t *data, size_t blocks);

/// The offset of the first byte of `bytes[0..<count]` that ends a JSON string's plain run: a
/// quote, a backslash or a control character (below 0x20); `count` when there is none.
size_t yui_json_string_run(const uint8_t *bytes, size_t count);

/// The offset of the first byte of `bytes[0..<count]` that is not JSON whitespace (space, tab,
/// newline, carriage return); `count` when all are.
size_t yui_json_whitespace_run(const uint8_t *bytes, size_t count);

#endif
