/// A run of bytes of the name being read.
struct ByteRun {
    var start: Int32
    var end: Int32
    var range: Range<Int> { Int(start)..<Int(end) }
}

/// A growable buffer of plain values that `MangledSwiftName` clears and refills for every name:
/// appending is a capacity check and a store. Arrays checked their uniqueness on every append,
/// and the reader appends a dozen times per operator (two thirds of its time went there).
final class ScratchBuffer<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }
    var first: Element? { count > 0 ? base[0] : nil }
    var last: Element? { count > 0 ? base[count - 1] : nil }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count)
            return base[index]
        }
        set {
            precondition(index >= 0 && index < count)
            base[index] = newValue
        }
    }

    subscript(range: Range<Int>) -> UnsafeBufferPointer<Element> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        base[count] = element
        count += 1
    }

    func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let start = elements.baseAddress, !elements.isEmpty else { return }
        if count + elements.count > capacity { grow(to: count + elements.count) }
        (base + count).update(from: start, count: elements.count)
        count += elements.count
    }

    func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    @discardableResult
    func removeLast() -> Element {
        precondition(count > 0)
        count -= 1
        return base[count]
    }

    func popLast() -> Element? { count > 0 ? removeLast() : nil }

    func removeAll() { count = 0 }

    /// Reverses the elements from `start` to the end in place.
    func reverse(from start: Int) {
        var elements = UnsafeMutableBufferPointer(start: base + start, count: count - start)
        elements.reverse()
    }

    private func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
