/// A closure the view hands to the renderer; stored globally so the closure stays a function
/// of its own (the optimizer would otherwise inline it into `body`).
var renderHook: (Num) -> Num = { $0 }

/// The screen that shows one chat thread.
struct ThreadView {
  var store: ChatStore
  var title: Num

  var body: Num {
    @inline(never) get {
    let render = { (size: Num) -> Num in
      var store = ChatStore(lines: YuiLines(width: size, count: zero), unread: size)
      return store.apply(ChatEvent(kind: .message, size: size))
    }
    renderHook = render
    return plus(renderHook(title), store.unread)
    }
  }

  @inline(never)
  mutating func refresh() -> Num {
    return plus(store.reload(title), body)
  }
}
