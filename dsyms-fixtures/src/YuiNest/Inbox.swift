/// Where the closures go. A closure called where it is made, or passed to a function the
/// optimizer can specialize, is inlined into its parent; one stored in a global and called
/// through it from elsewhere (`deliver`) stays a function of its own.
var sortHook: (Num) -> Num = { $0 }
var badgeHook: (Num) -> Num = { $0 }
var previewHook: (Num) -> Num = { $0 }

@inline(never)
func deliver(_ size: Num) -> Num {
  return plus(plus(sortHook(size), badgeHook(size)), previewHook(size))
}

/// A closure and a local function, both nested in this function's DWARF subprogram; `clamp`
/// captures `muted`.
@inline(never)
func unreadCount(_ unread: Num, _ muted: Num) -> Num {
  sortHook = { (size: Num) -> Num in
    return weigh(times(size, size), size)
  }
  @inline(never) func clamp(_ count: Num) -> Num {
    return weigh(count, muted)
  }
  return plus(clamp(unread), deliver(muted))
}

/// A local function with a closure inside it: the closure's subprogram is nested two deep.
@inline(never)
func badgeWidth(_ count: Num) -> Num {
  @inline(never) func digits(_ value: Num) -> Num {
    badgeHook = { (v: Num) -> Num in
      return weigh(plus(v, v), v)
    }
    return flip(weigh(value, value), deliver(value))
  }
  return times(digits(count), count)
}

/// A closure in a method, called here (inlined) and stored (out of line): the method's
/// subprogram (DW_AT_specification of the declaration inside the struct, at the unit's top level)
/// holds the closure's abstract subprogram and its out-of-line one (DW_AT_abstract_origin).
struct Preview {
  var lines: Num

  @inline(never)
  mutating func layout(_ width: Num) -> Num {
    let fit = { (w: Num) -> Num in
      return weigh(flip(w, times(w, w)), w)
    }
    previewHook = fit
    lines = plus(deliver(width), fit(lines))
    return plus(lines, width)
  }
}
