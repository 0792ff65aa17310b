var view = ThreadView(
  store: ChatStore(lines: YuiLines(width: zero, count: zero), unread: zero),
  title: zero)
let shown = view.refresh()
view.store.lines.fail(at: shown)
