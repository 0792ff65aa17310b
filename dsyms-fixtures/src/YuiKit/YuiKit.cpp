// YuiKit fixture: a small C++ framework linked into YuiApp. C++ gives `_Z` linkage names to
// demangle; `always_inline` helpers give DW_TAG_inlined_subroutine; `yui::Ledger::close` ends in
// a call to a noreturn function. No C++ library headers (there is no iOS SDK here).

namespace yui {

[[noreturn]] __attribute__((noinline)) void abortWith(long code);

struct Glyph {
  long width;
  long height;
};

__attribute__((always_inline)) inline long area(const Glyph &glyph) {
  return glyph.width * glyph.height;
}

__attribute__((always_inline)) inline long clampWidth(long width, long limit) {
  return width > limit ? limit : width;
}

class Ledger {
public:
  explicit Ledger(long limit) : limit_(limit), used_(0) {}

  __attribute__((noinline)) long reserve(const Glyph &glyph) {
    long size = area(glyph);
    used_ += clampWidth(size, limit_);
    return used_;
  }

  __attribute__((noinline)) long reserveAll(const Glyph *glyphs, long count) {
    long total = 0;
    for (long index = 0; index < count; ++index) {
      total += reserve(glyphs[index]) + area(glyphs[index]);
    }
    return total;
  }

  [[noreturn]] __attribute__((noinline)) void close(long reason) {
    abortWith(used_ + reason);
  }

private:
  long limit_;
  long used_;
};

volatile long lastAbortCode;

void abortWith(long code) {
  lastAbortCode = code;
  __builtin_trap();
}

namespace layout {

template <typename Value>
__attribute__((noinline)) Value widest(const Value *values, long count) {
  Value best = values[0];
  for (long index = 1; index < count; ++index) {
    best = clampWidth(values[index], 4096) > best ? values[index] : best;
  }
  return best;
}

template long widest<long>(const long *, long);
template int widest<int>(const int *, long);

} // namespace layout
} // namespace yui

extern "C" long YuiKitMeasure(const yui::Glyph *glyphs, long count) {
  yui::Ledger ledger(1024);
  long total = ledger.reserveAll(glyphs, count);
  if (total < 0) {
    ledger.close(total);
  }
  return total;
}
