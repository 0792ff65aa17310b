/* YuiCore fixture: a small C library built for several architectures and packed into fat
 * (universal) files, so that slice selection by UUID can be tested. YUI_CORE_VARIANT changes the
 * code between builds, so slices of the same architecture still differ. */

struct YuiSpan {
  long start;
  long length;
};

static inline __attribute__((always_inline)) long yui_span_end(const struct YuiSpan *span) {
  return span->start + span->length;
}

static inline __attribute__((always_inline)) long yui_max(long a, long b) {
  return a > b ? a : b;
}

__attribute__((noinline)) long yui_core_merge(struct YuiSpan *spans, long count) {
  long end = 0;
  for (long index = 0; index < count; ++index) {
    end = yui_max(end, yui_span_end(&spans[index]));
#if YUI_CORE_VARIANT >= 2
    spans[index].length = end - spans[index].start;
#endif
  }
  return end;
}

__attribute__((noinline)) long yui_core_checksum(const unsigned char *bytes, long count) {
  long sum = 0;
  for (long index = 0; index < count; ++index) {
    sum = (sum * 31) ^ bytes[index];
  }
  return sum;
}

volatile long yui_core_last_error;

__attribute__((noreturn, noinline)) void yui_core_abort(long code) {
  yui_core_last_error = code;
  __builtin_trap();
}

__attribute__((noinline)) long yui_core_span_total(struct YuiSpan *spans, long count) {
  long end = yui_core_merge(spans, count);
  if (end < 0) {
    yui_core_abort(end);
  }
  return end + yui_core_checksum((const unsigned char *)spans, count);
}
