// 16-byte scans over JSON text for PayloadDecode's parser (JSONTape.swift): the plain run of a
// string up to its closing quote, and runs of whitespace (a newline and its indentation). SSE2 is
// part of every x86-64 CPU, so no run-time check is needed; elsewhere the same answers come a byte
// at a time.
#include "CPayloadKernels.h"

#if defined(__x86_64__)
#include <emmintrin.h>

size_t yui_json_string_run(const uint8_t *bytes, size_t count) {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), control = _mm_set1_epi8(0x1F);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(bytes + i));
        // x <= 0x1F (unsigned) exactly when min(x, 0x1F) == x.
        const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                         _mm_cmpeq_epi8(_mm_min_epu8(x, control), x));
        const unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
    }
    for (; i < count; i++) {
        const uint8_t c = bytes[i];
        if (c == '"' || c == '\\' || c < 0x20) return i;
    }
    return count;
}

size_t yui_json_whitespace_run(const uint8_t *bytes, size_t count) {
    const __m128i space = _mm_set1_epi8(' '), newline = _mm_set1_epi8('\n'), ret = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(bytes + i));
        const __m128i white = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, space), _mm_cmpeq_epi8(x, newline)),
                                           _mm_or_si128(_mm_cmpeq_epi8(x, ret), _mm_cmpeq_epi8(x, tab)));
        const unsigned mask = (unsigned)_mm_movemask_epi8(white);
        if (mask != 0xFFFF) return i + (size_t)__builtin_ctz(~mask);
    }
    for (; i < count; i++) {
        const uint8_t c = bytes[i];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return i;
    }
    return count;
}

#else

size_t yui_json_string_run(const uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const uint8_t c = bytes[i];
        if (c == '"' || c == '\\' || c < 0x20) return i;
    }
    return count;
}

size_t yui_json_whitespace_run(const uint8_t *bytes, size_t count) {
    size_t i = 0;
    while (i < count && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) i++;
    return i;
}

#endif
