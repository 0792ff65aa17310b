// YuiApp fixture: the iOS standard library is not on this Linux machine, so the app is compiled
// with -parse-stdlib and defines the few value types it needs over Builtin types. The code never
// runs; it exists so that the dSYM has the shapes a real app has (types, inlined helpers, closures,
// a function that ends in a call).

precedencegroup AssignmentPrecedence {
  assignment: true
  associativity: right
}

/// A 64-bit count or offset.
struct Num {
  var raw: Builtin.Int64
}

/// Never returns: functions with this result type are `noreturn`.
enum Fatal {}

let zero = Num(raw: Builtin.zeroInitializer())

@inline(__always)
func plus(_ a: Num, _ b: Num) -> Num {
  return Num(raw: Builtin.add_Int64(a.raw, b.raw))
}

@inline(__always)
func times(_ a: Num, _ b: Num) -> Num {
  return Num(raw: Builtin.mul_Int64(a.raw, b.raw))
}

@inline(__always)
func mix(_ a: Num, _ b: Num) -> Num {
  return plus(times(a, b), Num(raw: Builtin.xor_Int64(a.raw, b.raw)))
}

/// Last code passed to `crash`, so that `crash` uses its argument and stays a real
/// `noreturn` function (an unused argument would be specialized away).
var lastCrashCode = zero

@inline(never)
func crash(_ code: Num) -> Fatal {
  lastCrashCode = code
  Builtin.int_trap()
}
