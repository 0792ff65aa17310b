/// A bare call-stack tree: `MXCallStackTree.jsonRepresentation()` (top-level `callStacks` and
/// `callStackPerThread`), the form MetricKit's API hands out for one stack and SDKs store and
/// attach. It carries no build, version, device or moment, so it makes no row of the table;
/// `symbolicate` and `top` read its stacks for the build they are given (`--build`).
public struct CallStackTreePath: Sendable, Equatable {
    /// The call stack's place in `callStacks` (a thread, when `callStackPerThread`), and the
    /// place of the path's root in its `callStackRootFrames`.
    public var callStack: Int
    public var root: Int
    /// Innermost first, at most 32 frames, offsets as a diagnostic's stack has them.
    public var frames: [StackFrame]
    /// Each frame's `address` as the tree gives it, root first (what SDKs show).
    public var addresses: [UInt64?]
    /// The samples that ended on this path (the heaviest path: its root's `sampleCount`).
    public var weight: UInt64
}

enum CallStackTrees {
    /// At most this many sample paths of one tree (`--all-samples`): memory stays bounded.
    static let maxPaths = 100_000

    /// Whether the object at `index` is a bare tree: `callStacks` at the top, no payload's keys.
    static func isTree(_ document: JSONDocument, _ index: Int) -> Bool {
        document.kind(index) == .object && document.hasMember(index, "callStacks") && !PayloadConverter.isPayload(document, index)
    }

    /// The tree's paths: per call stack its heaviest (root, then at each step the child with the
    /// most samples, as MetricKit's own most common stack), or with `allSamples` every path that
    /// samples end on, each weighing the samples of its last frame less its children's (the
    /// weights of a root's paths sum to its `sampleCount`). No recursion; the depth limit of a
    /// diagnostic's stack (130) holds here too.
    static func paths(
        _ document: JSONDocument, _ tree: Int, allSamples: Bool, warnings: inout [(key: String, message: String)]
    ) -> [CallStackTreePath] {
        let perThread = document.member(tree, "callStackPerThread").flatMap { document.bool($0) } ?? false
        var result: [CallStackTreePath] = []
        let stacks = document.member(tree, "callStacks").map { document.elements($0) } ?? []
        if stacks.isEmpty { warnings.append(("callStacks", "no call stack")) }
        for (stackIndex, stack) in stacks.enumerated() {
            guard document.kind(stack) == .object,
                let rootList = document.member(stack, "callStackRootFrames"), document.kind(rootList) == .array
            else {
                warnings.append(("callStacks[\(stackIndex)]", "no callStackRootFrames; skipped"))
                continue
            }
            let key = "callStacks[\(stackIndex)].callStackRootFrames"
            var names = StackNormalizer.TextCache()
            var uuids = StackNormalizer.TextCache()
            var binaries: [String: Int] = [:]
            func samples(_ node: Int) -> UInt64 {
                guard document.kind(node) == .object, let value = document.member(node, "sampleCount"),
                    case .value(let count) = document.unsignedInteger(value)
                else { return 0 }
                return count
            }
            func children(_ node: Int) -> [Int] {
                guard document.kind(node) == .object, let list = document.member(node, "subFrames"), document.kind(list) == .array
                else { return [] }
                return document.elements(list).filter { document.kind($0) == .object }
            }
            func heaviest(_ nodes: [Int]) -> Int? {
                var best: Int?
                for node in nodes where best == nil || samples(node) > samples(best!) { best = node }
                return best
            }
            func path(_ nodes: [Int], root: Int, weight: UInt64) -> CallStackTreePath {
                var raw: [StackNormalizer.RawFrame] = []
                for node in nodes {
                    let (frame, _) = StackNormalizer.readFrame(
                        document, node, key: { key }, warnings: &warnings, names: &names, uuids: &uuids, binaries: &binaries)
                    raw.append(frame)
                }
                let addresses = raw.map(\.address)
                // Per thread, a root is the innermost frame (a crash's); in a sample tree the outermost.
                if !perThread { raw.reverse() }
                let frames = StackNormalizer.offsets(of: raw, binaryCount: binaries.count, stackKey: key, warnings: &warnings)
                return CallStackTreePath(callStack: stackIndex, root: root, frames: frames, addresses: addresses, weight: weight)
            }
            let roots = document.elements(rootList).filter { document.kind($0) == .object }
            if !allSamples {
                guard var node = heaviest(roots), let rootPlace = roots.firstIndex(of: node) else { continue }
                var nodes = [node]
                while nodes.count < StackNormalizer.maxDepth, let next = heaviest(children(node)) {
                    nodes.append(next)
                    node = next
                }
                result.append(path(nodes, root: rootPlace, weight: samples(nodes[0])))
                continue
            }
            // Depth first, each root in turn: a stack of (node, depth), the path so far beside it.
            for (rootPlace, root) in roots.enumerated() {
                var pending: [(node: Int, depth: Int)] = [(root, 0)]
                var current: [Int] = []
                while let (node, depth) = pending.popLast() {
                    current.removeSubrange(depth...)
                    current.append(node)
                    let below = depth + 1 < StackNormalizer.maxDepth ? children(node) : []
                    let childSamples = below.reduce(UInt64(0)) { $0.addingReportingOverflow(samples($1)).partialValue }
                    let own = samples(node) > childSamples ? samples(node) - childSamples : 0
                    if own > 0 {
                        guard result.count < maxPaths else {
                            warnings.append((key, "more than \(maxPaths) sample paths; the rest are left out"))
                            return result
                        }
                        result.append(path(current, root: rootPlace, weight: own))
                    }
                    for child in below.reversed() { pending.append((child, depth + 1)) }
                }
            }
        }
        return result
    }
}
