import PayloadDecode

/// The diagnostics `top` ranks. The report of docs/design.md lists hangs and crashes only: a CPU or
/// disk-write exception is a budget overrun in the background, not a stall the user felt, and its
/// value (CPU seconds, megabytes) does not add up with hang seconds.
public enum WorstStackKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case hang
    case crash

    /// The kind of a diagnostic row, `nil` for rows `top` does not rank. The row is borrowed: an
    /// initialiser owns its argument, and `top` and `report` had each row copied for it, then freed.
    public init?(row: borrowing Row) {
        switch row.diagnostic {
        case .hang: self = .hang
        case .crash: self = .crash
        case .cpuException, .diskWrite, .launch, nil: return nil
        }
    }

    public static func < (lhs: WorstStackKind, rhs: WorstStackKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One hang or crash, symbolicated, ready to be counted.
public struct StackOccurrence: Sendable {
    public var build: Int
    public var kind: WorstStackKind
    public var rowKey: String
    /// The phone it came from, as `user/device model` (rows carry no phone identifier, so two
    /// phones of one model under one account count as one, as the report's phones do); `nil`
    /// when unknown.
    public var phone: String?
    /// A crash's reason, when its row has one (`CrashCause`).
    public var cause: CrashCause?
    /// Seconds: the hang's duration, or the crash weight (docs/design.md, "Signatures").
    public var weight: Double
    public var stack: ExpandedStack { tallied.stack }
    /// The stack with what the tally reads of it, made once per distinct stack.
    public var tallied: TalliedStack

    public init(build: Int, kind: WorstStackKind, rowKey: String, weight: Double, stack: ExpandedStack) {
        self.init(build: build, kind: kind, rowKey: rowKey, weight: weight, tallied: TalliedStack(stack))
    }

    /// An occurrence of a stack already prepared: rows sharing a stack share its `TalliedStack`.
    public init(
        build: Int, kind: WorstStackKind, rowKey: String, weight: Double, tallied: TalliedStack, phone: String? = nil,
        cause: CrashCause? = nil
    ) {
        self.cause = cause
        self.build = build
        self.kind = kind
        self.rowKey = rowKey
        self.phone = phone
        self.weight = weight
        self.tallied = tallied
    }
}

/// A stack with its signature and its frames as a folded stack (`outermost;...;innermost`):
/// what the tally reads of every occurrence. Made once per distinct stack: building both texts
/// for each of a million rows sharing ten stacks was most of `top`'s time.
public struct TalliedStack: Sendable {
    public let stack: ExpandedStack
    public let signature: StackSignature
    /// The frames, root first, each name with `;` and line breaks replaced; `(no stack)` for none.
    let foldedFrames: String
    /// The hashes of the signature's text and of `foldedFrames`, taken once per distinct stack:
    /// the tally hashed both strings again for every occurrence (`WorstStacksTally.add`).
    let signatureHash: Int
    let foldedHash: Int

    public init(_ stack: ExpandedStack) {
        self.stack = stack
        signature = StackSignature(of: stack)
        foldedFrames =
            stack.frames.isEmpty
            ? StackSignature.noStackText : stack.frames.reversed().map { WorstStacksTally.foldedName($0.name) }.joined(separator: ";")
        signatureHash = signature.text.hashValue
        foldedHash = foldedFrames.hashValue
    }
}

/// Every occurrence of one (build, kind, signature), summed.
public struct SignatureGroup: Sendable {
    public var build: Int
    public var kind: WorstStackKind
    public var signature: StackSignature
    /// Total seconds.
    public var weight: Double
    public var count: Int
    /// The heaviest single occurrence, in seconds.
    public var max: Double
    /// The signature's frames as the heaviest occurrence had them, so file and line point at one
    /// real stack (the first one seen when several weigh the most).
    public var heaviestFrames: [ExpandedFrame]
    public var heaviestRowKey: String
    /// Every occurrence's row key, in input order.
    public var rowKeys: [String]
    /// The distinct phones it hit (`StackOccurrence.phone`), as Organizer and Sentry count users.
    public var phones: Set<String> = []
    /// How many of its crashes ended for each reason; crashes without one are not counted.
    public var causes: [CrashCause: Int] = [:]

    /// Its crashes' reasons, most common first (ties by their numbers, so the order never depends
    /// on input order).
    public var rankedCauses: [(cause: CrashCause, count: Int)] {
        causes.map { (cause: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.cause < $1.cause }
    }

    /// `EXC_BAD_ACCESS (SIGSEGV)`, the most common reason, with `+1 other reason` when its crashes
    /// ended in more than one way; `nil` when none of them said.
    public var causeSummary: String? {
        let ranked = rankedCauses
        guard let first = ranked.first else { return nil }
        let others = ranked.count - 1
        return first.cause.description + (others == 0 ? "" : " +\(others) other reason\(others == 1 ? "" : "s")")
    }
}

/// Sums occurrences into signature groups per build as rows stream in; holds one group per
/// distinct signature and one entry per distinct folded stack, never the rows themselves.
public struct WorstStacksTally: Sendable {
    private struct GroupKey: Hashable {
        var build: Int
        var kind: WorstStackKind
        var signature: String
        /// `signature`'s hash, taken once per distinct stack (`TalliedStack.signatureHash`).
        var signatureHash: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(build)
            hasher.combine(kind)
            hasher.combine(signatureHash)
        }

        static func == (left: GroupKey, right: GroupKey) -> Bool {
            left.build == right.build && left.kind == right.kind && left.signature == right.signature
        }
    }

    /// A folded stack's line is written only at the end (`foldedLines`): joining the build and
    /// the kind to every occurrence's frames was a twentieth of `top` over 20,000 rows.
    private struct FoldedKey: Hashable {
        var build: Int
        var kind: WorstStackKind
        var frames: String
        /// `frames`' hash, taken once per distinct stack (`TalliedStack.foldedHash`).
        var framesHash: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(build)
            hasher.combine(kind)
            hasher.combine(framesHash)
        }

        static func == (left: FoldedKey, right: FoldedKey) -> Bool {
            left.build == right.build && left.kind == right.kind && left.frames == right.frames
        }
    }

    private var groups: [GroupKey: SignatureGroup] = [:]
    private var seenBuilds: Set<Int> = []
    private var foldedSeconds: [FoldedKey: Double] = [:]

    public init() {}

    /// Remembers a build that had rows, so it is listed even when none of them is a hang or a crash.
    public mutating func noteBuild(_ build: Int) {
        seenBuilds.insert(build)
    }

    /// Room for `count` more occurrences' groups and folded stacks (at most 65,536), so a batch of
    /// distinct stacks does not grow both tables step by step: their rehashing, every folded stack
    /// hashed again, was a twentieth of `top` over 20,000 rows.
    public mutating func reserve(_ count: Int) {
        let room = min(count, 1 << 16)
        groups.reserveCapacity(groups.count + room)
        foldedSeconds.reserveCapacity(foldedSeconds.count + room)
    }

    public mutating func add(_ occurrence: StackOccurrence) {
        seenBuilds.insert(occurrence.build)
        let signature = occurrence.tallied.signature
        let key = GroupKey(
            build: occurrence.build, kind: occurrence.kind, signature: signature.text, signatureHash: occurrence.tallied.signatureHash)
        if let index = groups.index(forKey: key) {
            // Changed in place: a copy taken out and stored back would copy `rowKeys` every time,
            // which made `top` quadratic in the rows sharing a signature.
            groups.values[index].weight += occurrence.weight
            groups.values[index].count += 1
            groups.values[index].rowKeys.append(occurrence.rowKey)
            if let phone = occurrence.phone { groups.values[index].phones.insert(phone) }
            if let cause = occurrence.cause { groups.values[index].causes[cause, default: 0] += 1 }
            if occurrence.weight > groups.values[index].max {
                groups.values[index].max = occurrence.weight
                groups.values[index].heaviestFrames = signature.frames
                groups.values[index].heaviestRowKey = occurrence.rowKey
            }
        } else {
            groups[key] = SignatureGroup(
                build: occurrence.build, kind: occurrence.kind, signature: signature, weight: occurrence.weight,
                count: 1, max: occurrence.weight, heaviestFrames: signature.frames,
                heaviestRowKey: occurrence.rowKey, rowKeys: [occurrence.rowKey], phones: occurrence.phone.map { [$0] } ?? [],
                causes: occurrence.cause.map { [$0: 1] } ?? [:])
        }
        let folded = FoldedKey(
            build: occurrence.build, kind: occurrence.kind, frames: occurrence.tallied.foldedFrames,
            framesHash: occurrence.tallied.foldedHash)
        foldedSeconds[folded, default: 0] += occurrence.weight
    }

    /// Builds that had rows, newest (highest number) first.
    public var builds: [Int] { seenBuilds.sorted(by: >) }

    /// A build's signatures, heaviest first. Weights compare in whole milliseconds so sums that
    /// differ only by floating-point noise tie, then the larger count wins, then kind and text
    /// decide, so the order never depends on input order.
    public func ranked(build: Int) -> [SignatureGroup] {
        groups.values.filter { $0.build == build }.sorted(by: Self.ranksAbove)
    }

    /// The first `limit` of `ranked(build:)`, picked without sorting every signature: ranking all
    /// 20,000 signatures of 20,000 distinct stacks to print three was 3% of `top`. The
    /// order is total (no two groups of a build share kind and text), so these are the same groups
    /// in the same order.
    public func ranked(build: Int, limit: Int) -> [SignatureGroup] {
        guard limit > 0 else { return [] }
        // Each group is placed among those kept: past a few dozen, sorting them all costs less.
        guard limit <= 32 else { return Array(ranked(build: build).prefix(limit)) }
        var top: [SignatureGroup] = []
        for group in groups.values where group.build == build {
            if top.count == limit, !Self.ranksAbove(group, top[limit - 1]) { continue }
            let place = top.firstIndex { Self.ranksAbove(group, $0) } ?? top.count
            top.insert(group, at: place)
            if top.count > limit { top.removeLast() }
        }
        return top
    }

    /// Whether `lhs` ranks above `rhs`: weights compare in whole milliseconds, then counts, then
    /// the signature's text and the kind.
    private static func ranksAbove(_ lhs: SignatureGroup, _ rhs: SignatureGroup) -> Bool {
        let (left, right) = (milliseconds(lhs.weight), milliseconds(rhs.weight))
        if left != right { return left > right }
        if lhs.count != rhs.count { return lhs.count > rhs.count }
        if lhs.signature.text != rhs.signature.text { return lhs.signature.text < rhs.signature.text }
        return lhs.kind < rhs.kind
    }

    /// Folded stacks of one build (the format of Brendan Gregg's `stackcollapse` scripts, read by
    /// `flamegraph.pl`, inferno and speedscope): `build 131;hang;outermost;...;innermost 1234`,
    /// weighted in milliseconds, sorted by stack.
    public func foldedLines(build: Int) -> [String] {
        foldedSeconds.compactMap { key, seconds -> String? in
            guard key.build == build else { return nil }
            let weight = Self.milliseconds(seconds)
            return weight > 0 ? "build \(key.build);\(key.kind.rawValue);\(key.frames) \(weight)" : nil
        }.sorted()
    }

    /// Seconds as whole milliseconds, clamped to `Int64`'s range: a row file may carry an absurd
    /// duration (1e300 s), and converting that unclamped would trap. NaN counts as 0.
    static func milliseconds(_ seconds: Double) -> Int64 {
        let value = (seconds * 1000).rounded()
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return Int64.max }
        if value <= -9.2e18 { return Int64.min }
        return Int64(value)
    }

    /// Folded stacks are written root first, with the build and the kind as the two outermost
    /// frames, so builds and kinds never merge in a flame graph (`TalliedStack.foldedFrames`).
    /// `;` separates frames and a newline ends a record, so neither may appear inside a name.
    static func foldedName(_ name: String) -> String {
        // Nearly every name is ASCII without either: kept as it is, no character walked.
        if name.utf8.allSatisfy({ $0 != UInt8(ascii: ";") && $0 >= 0x20 && $0 < 0x80 }) { return name }
        return String(name.map { $0 == ";" ? ":" : ($0.isNewline ? " " : $0) })
    }
}

extension WorstStacksTally {
    /// Adds another tally (another hour of the same builds) as if its occurrences had been added
    /// here after this tally's own: weights and counts add, row keys follow, the heaviest stays.
    public mutating func merge(_ other: WorstStacksTally) {
        seenBuilds.formUnion(other.seenBuilds)
        for (key, group) in other.groups {
            guard let index = groups.index(forKey: key) else {
                groups[key] = group
                continue
            }
            groups.values[index].weight += group.weight
            groups.values[index].count += group.count
            groups.values[index].rowKeys += group.rowKeys
            groups.values[index].phones.formUnion(group.phones)
            groups.values[index].causes.merge(group.causes, uniquingKeysWith: +)
            if group.max > groups.values[index].max {
                groups.values[index].max = group.max
                groups.values[index].heaviestFrames = group.heaviestFrames
                groups.values[index].heaviestRowKey = group.heaviestRowKey
            }
        }
        for (key, seconds) in other.foldedSeconds { foldedSeconds[key, default: 0] += seconds }
    }
}
