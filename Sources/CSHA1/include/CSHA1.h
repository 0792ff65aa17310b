#ifndef YUI_CSHA1_H
#define YUI_CSHA1_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the x86 SHA extensions (and SSSE3/SSE4.1, which the rounds also use).
/// Always 0 on other architectures.
int yui_sha1_hardware_available(void);

/// SHA-1's compression function over `blocks` consecutive 64-byte blocks at `data`, updating
/// `state` (the five chaining words, h0 first), with the SHA instructions. Call only when
/// `yui_sha1_hardware_available()` said 1.
void yui_sha1_hardware_compress(uint32_t state[5], const uint8_t *data, size_t blocks);

#endif
