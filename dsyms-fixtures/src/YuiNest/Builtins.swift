// YuiNest fixture: like YuiApp, compiled with -parse-stdlib over Builtin types (there is no iOS
// standard library here). The code never runs; it exists so that the dSYM has closures and local
// functions whose DWARF subprograms sit inside their parent function's subprogram, with code of
// their own outside the parent's range, and inlined calls inside them.

precedencegroup AssignmentPrecedence {
  assignment: true
  associativity: right
}

/// A 64-bit count or size.
struct Num {
  var raw: Builtin.Int64
}

let zero = Num(raw: Builtin.zeroInitializer())

// The inlined helpers. `weigh` inlines the other three, so a call to it is two levels of
// inlined frames: weigh, then plus, times or flip.

@inline(__always)
func plus(_ a: Num, _ b: Num) -> Num {
  return Num(raw: Builtin.add_Int64(a.raw, b.raw))
}

@inline(__always)
func times(_ a: Num, _ b: Num) -> Num {
  return Num(raw: Builtin.mul_Int64(a.raw, b.raw))
}

@inline(__always)
func flip(_ a: Num, _ b: Num) -> Num {
  return Num(raw: Builtin.xor_Int64(a.raw, b.raw))
}

@inline(__always)
func weigh(_ a: Num, _ b: Num) -> Num {
  return flip(times(a, b), plus(a, b))
}
