extension [UInt64] {
    /// The positions of the values in ascending order, equal values in the order they come (as a
    /// stable sort has them). Values below 2^44 (every real image's addresses) in arrays under a
    /// million go as single integers, the position in the low 20 bits: sorting those needs no
    /// closure (sorting positions by a closure reading the values was an eightieth of a cold
    /// batch, and a twentieth of loading a symbol table).
    func ascendingOrder() -> [Int] {
        let positionBits: UInt64 = 20
        guard count < 1 << positionBits, allSatisfy({ $0 < 1 << (64 - positionBits) }) else {
            return indices.sorted { self[$0] < self[$1] }
        }
        var keys = enumerated().map { $1 << positionBits | UInt64($0) }
        keys.sort()
        return keys.map { Int($0 & (1 << positionBits - 1)) }
    }
}
