/// What happened in a chat thread. (Payload enums need the standard library, so the
/// event is a kind plus a size.)
enum ChatEventKind {
  case message
  case read
  case typing
}

struct ChatEvent {
  var kind: ChatEventKind
  var size: Num
}

/// Holds the lines of one chat thread.
struct ChatStore {
  var lines: YuiLines
  var unread: Num

  @inline(__always)
  func score(_ value: Num) -> Num {
    return times(plus(value, unread), lines.width)
  }

  @inline(never)
  mutating func apply(_ event: ChatEvent) -> Num {
    switch event.kind {
    case .message:
      unread = plus(unread, event.size)
      return plus(lines.parse(score(event.size)), unread)
    case .read:
      unread = zero
      return score(event.size)
    case .typing:
      return times(lines.parse(unread), lines.count)
    }
  }

  @inline(never)
  mutating func reload(_ count: Num) -> Num {
    lines = YuiLines.measure(count, width: lines.width)
    return plus(apply(ChatEvent(kind: .message, size: count)), lines.count)
  }
}
