/* Compiled without -g: these functions are in YuiKit's symbol table but have no DWARF, the case
 * where a symbolicator falls back to the nearest symbol (as for hand-written assembly or a
 * library built without debug info). */

__attribute__((noinline)) long yui_kit_fast_hash(const unsigned char *bytes, long count) {
  unsigned long hash = 1469598103934665603UL;
  for (long index = 0; index < count; ++index) {
    hash = (hash ^ bytes[index]) * 1099511628211UL;
  }
  return (long)hash;
}

__attribute__((noinline)) long yui_kit_fast_mix(long a, long b) {
  return (a << 7) ^ (b >> 3) ^ yui_kit_fast_hash((const unsigned char *)&a, sizeof a);
}
