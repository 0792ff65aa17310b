// The cursor over a mangled name's bytes that every operator reads from.
extension MangledSwiftName {
    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        var peek: UInt8 { position < end ? bytes[position] : 0 }

        mutating func next() -> UInt8 {
            guard position < end else { return 0 }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func nextIf(_ byte: UInt8) -> Bool {
            guard position < end, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// A decimal number, or `nil` when none is there (or it is absurdly large).
        mutating func natural() -> Int? {
            guard position < end, isDigit(bytes[position]) else { return nil }
            var value = 0
            while position < end, isDigit(bytes[position]) {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                if value > 1 << 30 { return nil }
                position += 1
            }
            return value
        }

        /// `_` is 0, `N_` is N + 1.
        mutating func index() -> Int? {
            if nextIf(UInt8(ascii: "_")) { return 0 }
            guard let value = natural(), nextIf(UInt8(ascii: "_")) else { return nil }
            return value + 1
        }
    }
}
