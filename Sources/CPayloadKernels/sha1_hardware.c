// SHA-1 with the x86 SHA extensions (SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2), for the row keys:
// every payload's canonical text is hashed, and the portable Swift compression in
// PayloadDecode/SHA1.swift was an eighth of `payload-tool rows`. Written for this package from the
// instructions' definitions in the Intel SDM; the Swift code stays the reference and the fallback.
#include "CPayloadKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

int yui_sha1_hardware_available(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    int sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}

__attribute__((target("sha,ssse3,sse4.1")))
void yui_sha1_hardware_compress(uint32_t state[5], const uint8_t *data, size_t blocks) {
    // ABCD lives in one register with A in the highest lane; E in the highest lane of another.
    // Message words are loaded big-endian with the first word in the highest lane.
    const __m128i byte_order = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
    __m128i e = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (size_t block = 0; block < blocks; block++, data += 64) {
        const __m128i abcd_saved = abcd, e_saved = e;
        __m128i w[4];
        for (int k = 0; k < 4; k++) w[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * k)), byte_order);
        // Rounds 0-3: E is added to the first four words by hand; afterwards SHA1NEXTE derives
        // the next E from the ABCD of four rounds before and adds it to the next four words.
        __m128i previous = abcd;
        abcd = _mm_sha1rnds4_epu32(abcd, _mm_add_epi32(e, w[0]), 0);
#define YUI_SHA1_GROUP(g, f)                                                                              \
    do {                                                                                                  \
        if ((g) >= 4)                                                                                     \
            w[(g) & 3] = _mm_sha1msg2_epu32(                                                              \
                _mm_xor_si128(_mm_sha1msg1_epu32(w[(g) & 3], w[((g) + 1) & 3]), w[((g) + 2) & 3]),        \
                w[((g) + 3) & 3]);                                                                        \
        __m128i next_e = _mm_sha1nexte_epu32(previous, w[(g) & 3]);                                       \
        previous = abcd;                                                                                  \
        abcd = _mm_sha1rnds4_epu32(abcd, next_e, (f));                                                    \
    } while (0)
        YUI_SHA1_GROUP(1, 0); YUI_SHA1_GROUP(2, 0); YUI_SHA1_GROUP(3, 0); YUI_SHA1_GROUP(4, 0);
        YUI_SHA1_GROUP(5, 1); YUI_SHA1_GROUP(6, 1); YUI_SHA1_GROUP(7, 1); YUI_SHA1_GROUP(8, 1); YUI_SHA1_GROUP(9, 1);
        YUI_SHA1_GROUP(10, 2); YUI_SHA1_GROUP(11, 2); YUI_SHA1_GROUP(12, 2); YUI_SHA1_GROUP(13, 2); YUI_SHA1_GROUP(14, 2);
        YUI_SHA1_GROUP(15, 3); YUI_SHA1_GROUP(16, 3); YUI_SHA1_GROUP(17, 3); YUI_SHA1_GROUP(18, 3); YUI_SHA1_GROUP(19, 3);
#undef YUI_SHA1_GROUP
        // The final E: rotate the A of four rounds before by 30 and add the saved E.
        e = _mm_sha1nexte_epu32(previous, e_saved);
        abcd = _mm_add_epi32(abcd, abcd_saved);
    }
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
    state[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

#else

int yui_sha1_hardware_available(void) { return 0; }

void yui_sha1_hardware_compress(uint32_t state[5], const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
}

#endif
