import PayloadDecode

/// The (user, row key) of every row counted, 24 bytes each, so a row read twice (a dump given
/// twice, or a dump and the row file made from it) counts once, as the table stores it once.
/// `top` and `report` keep one each. (A string per row was 90 bytes and a hash of 40 characters.)
struct CountedRows {
    private var counted = RowKeyTable()
    private var users: [String: Int] = [:]

    private struct Key {
        var user: Int
        var high: UInt64
        var low: UInt64
    }

    /// The last user's number: a file's rows mostly come user by user.
    private var lastUser: (id: String, index: Int)?

    /// Counts the row; false when it was counted already.
    mutating func insert(_ row: Row) -> Bool {
        let key = key(of: row)
        if !isKnownUniquelyReferenced(&counted) { counted = RowKeyTable(copying: counted) }
        return counted.insert(user: key.user, high: key.high, low: key.low)
    }

    private mutating func key(of row: Row) -> Key {
        let user = row.user_id ?? ""
        let index: Int
        if let lastUser, lastUser.id == user {
            index = lastUser.index
        } else {
            index = users[user] ?? users.count
            users[user] = index
            lastUser = (user, index)
        }
        let (high, low) = Self.uuidBits(row.row_key)
        return Key(user: index, high: high, low: low)
    }

    /// The 128 bits of a canonical UUID (the reader checked the form); anything else hashes apart.
    static func uuidBits(_ text: String) -> (UInt64, UInt64) {
        var text = text
        let bits = text.withUTF8 { bytes -> (UInt64, UInt64)? in
            // The 8-4-4-4-12 form the reader checked: its digits at fixed places.
            if bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"), bytes[18] == UInt8(ascii: "-"),
                bytes[23] == UInt8(ascii: "-")
            {
                var words: (UInt64, UInt64) = (0, 0)
                var invalid: UInt8 = 0
                for position in 0..<36 where position != 8 && position != 13 && position != 18 && position != 23 {
                    let value = hexDigits[Int(bytes[position])]
                    invalid |= value
                    if position < 19 { words.0 = words.0 << 4 | UInt64(value & 0xF) } else { words.1 = words.1 << 4 | UInt64(value & 0xF) }
                }
                return invalid & 0x80 == 0 ? words : nil
            }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for byte in bytes where byte != UInt8(ascii: "-") {
                let value = hexDigits[Int(byte)]
                guard value & 0x80 == 0 else { return nil }
                if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
                digits += 1
            }
            return digits == 32 ? (high, low) : nil
        }
        return bits ?? (UInt64(bitPattern: Int64(text.hashValue)), UInt64.max)
    }

    /// Each byte's value as a hex digit, 0x80 for a byte that is not one.
    private static let hexDigits: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0x80
        }
    }
}
