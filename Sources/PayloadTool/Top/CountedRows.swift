import PayloadDecode

/// The (user, row key) of every row counted, 24 bytes each, so a row read twice (a dump given
/// twice, or a dump and the row file made from it) counts once, as the table stores it once.
/// `top` and `report` keep one each. (A string per row was 90 bytes and a hash of 40 characters.)
struct CountedRows {
    private var counted: Set<Key> = []
    private var users: [String: Int] = [:]

    private struct Key: Hashable {
        var user: Int
        var high: UInt64
        var low: UInt64
    }

    /// Counts the row; false when it was counted already.
    mutating func insert(_ row: Row) -> Bool { counted.insert(key(of: row)).inserted }

    private mutating func key(of row: Row) -> Key {
        let user = row.user_id ?? ""
        let index = users[user] ?? users.count
        users[user] = index
        let (high, low) = Self.uuidBits(row.row_key)
        return Key(user: index, high: high, low: low)
    }

    /// The 128 bits of a canonical UUID (the reader checked the form); anything else hashes apart.
    static func uuidBits(_ text: String) -> (UInt64, UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for byte in text.utf8 where byte != UInt8(ascii: "-") {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte &- UInt8(ascii: "A") &+ 10
            default: return (UInt64(bitPattern: Int64(text.hashValue)), UInt64.max)
            }
            if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            digits += 1
        }
        return digits == 32 ? (high, low) : (UInt64(bitPattern: Int64(text.hashValue)), UInt64.max)
    }
}
