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
      return lines.parse(score(event.size))
    case .read:
      unread = zero
      return score(event.size)
    case .typing:
      return lines.parse(unread)
    }
  }

  @inline(never)
  mutating func reload(_ count: Num) -> Num {
    lines = YuiLines.measure(count, width: lines.width)
    return apply(ChatEvent(kind: .message, size: count))
  }
}
