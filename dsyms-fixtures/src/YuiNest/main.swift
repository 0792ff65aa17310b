var preview = Preview(lines: zero)
let unread = unreadCount(zero, zero)
let width = badgeWidth(unread)
let shown = preview.layout(width)
