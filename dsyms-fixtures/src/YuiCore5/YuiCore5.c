/* YuiCore5 fixture: C built with -gdwarf-5, so its dSYM has the DWARF 5 sections
 * (__debug_str_offs, __debug_addr, __debug_line_str, __debug_rnglists, __debug_loclists).
 * Built with -O2, the inlined yui5_hash in yui5_slow_path and some lexical blocks cover two
 * address ranges each, so they need range lists (DW_AT_ranges through DW_FORM_rnglistx). */

struct Yui5Entry {
  long key;
  long value;
};

static inline __attribute__((always_inline)) long yui5_hash(long key) {
  return (key * 0x9E3779B97F4A7C15L) ^ (key >> 29);
}

static inline __attribute__((always_inline)) long yui5_pick(long a, long b) {
  return a < b ? a : b;
}

__attribute__((noinline)) long yui5_fold(const struct Yui5Entry *entries, long count) {
  long hash = 0;
  long smallest = 1L << 62;
  for (long index = 0; index < count; ++index) {
    hash ^= yui5_hash(entries[index].key + hash);
    smallest = yui5_pick(smallest, entries[index].value);
  }
  return hash + smallest;
}

volatile long yui5_last_failure;

__attribute__((noreturn, noinline)) void yui5_fail(long code) {
  yui5_last_failure = code;
  __builtin_trap();
}

__attribute__((noinline)) long yui5_slow_path(const struct Yui5Entry *entries, long count) {
  long total = 0;
  for (long index = 0; index < count; ++index) {
    total += yui5_hash(entries[index].value);
  }
  return total;
}

__attribute__((noinline)) long yui5_lookup(const struct Yui5Entry *entries, long count, long key) {
  for (long index = 0; index < count; ++index) {
    if (entries[index].key == key) {
      return entries[index].value;
    }
  }
  if (count > 1000) {
    return yui5_slow_path(entries, count);
  }
  yui5_fail(key);
}
