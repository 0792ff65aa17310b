// yui-linux fixture: an x86-64 Linux ELF executable with a GNU build-id and DWARF but no
// .debug_aranges, the way Swift and clang builds on Linux come out. Freestanding (no C library),
// so it links anywhere with only the toolchain.

namespace yui {
namespace linux_build {

struct Sample {
  long millis;
  long count;
};

__attribute__((always_inline)) inline long weight(const Sample &sample) {
  return sample.millis * sample.count;
}

__attribute__((always_inline)) inline long heavier(long a, long b) {
  return a > b ? a : b;
}

__attribute__((noinline)) long heaviest(const Sample *samples, long count) {
  long best = 0;
  for (long index = 0; index < count; ++index) {
    best = heavier(best, weight(samples[index]));
  }
  return best;
}

volatile long lastExit;

[[noreturn]] __attribute__((noinline)) void exitWith(long code) {
  lastExit = code;
  for (;;) {
    __asm__ volatile("hlt");
  }
}

__attribute__((noinline)) long total(const Sample *samples, long count) {
  long sum = 0;
  for (long index = 0; index < count; ++index) {
    sum += weight(samples[index]);
  }
  return sum;
}

} // namespace linux_build
} // namespace yui

extern "C" [[noreturn]] void _start() {
  static yui::linux_build::Sample samples[3] = {{10, 2}, {30, 1}, {5, 8}};
  long worst = yui::linux_build::heaviest(samples, 3);
  yui::linux_build::exitWith(worst + yui::linux_build::total(samples, 3));
}
