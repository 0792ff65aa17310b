/// Line breaking for chat bubbles.
struct YuiLines {
  var width: Num
  var count: Num

  @inline(__always)
  func scanWord(_ start: Num) -> Num {
    return mix(start, width)
  }

  @inline(__always)
  func wrap(_ length: Num) -> Num {
    return plus(scanWord(length), times(length, count))
  }

#if YUI_BUILD_131
  /// Build 131: trailing spaces no longer count toward the width.
  @inline(never)
  func trimmed(_ length: Num) -> Num {
    return plus(times(length, width), count)
  }
#endif

  @inline(never)
  func parse(_ chunk: Num) -> Num {
#if YUI_BUILD_131
    let first = scanWord(trimmed(chunk))
#else
    let first = scanWord(chunk)
#endif
    let second = wrap(first)
    return mix(first, second)
  }

  @inline(never)
  static func measure(_ text: Num, width: Num) -> YuiLines {
    let lines = YuiLines(width: width, count: zero)
    return YuiLines(width: width, count: lines.wrap(text))
  }

  /// Ends in a call to a `noreturn` function: its return address is the first byte after it.
  @inline(never)
  func fail(at offset: Num) -> Fatal {
    return crash(plus(offset, count))
  }
}
