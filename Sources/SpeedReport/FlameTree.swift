/// Hang stacks merged into one tree, root first, weighted in seconds: what the report page draws as
/// an icicle graph. Frames merge by name along the same path, as `top --folded` stacks do in a
/// flame-graph tool; each node keeps the file and line of the first stack that reached it.
public struct FlameTree: Sendable {
    public struct Node: Sendable {
        public var name: String
        /// `file:line`, or `nil` when the frame has no line (no debug file).
        public var location: String?
        public var seconds: Double
        public var children: [Int] = []
        var childByName: [String: Int] = [:]
    }

    /// Node 0 is the root: the whole build's time.
    public private(set) var nodes: [Node]

    public init(rootName: String = "all") {
        nodes = [Node(name: rootName, location: nil, seconds: 0)]
    }

    /// Adds one stack, outermost frame first.
    public mutating func add(_ frames: some Sequence<(name: String, location: String?)>, seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        var current = 0
        nodes[0].seconds += seconds
        for frame in frames {
            current = child(of: current, name: frame.name, location: frame.location)
            nodes[current].seconds += seconds
        }
    }

    /// Adds every stack of another tree.
    public mutating func merge(_ other: FlameTree) {
        nodes[0].seconds += other.nodes[0].seconds
        var pending = [(0, 0)]  // (node here, node there): a loop, so a deep tree cannot overflow the stack
        while let (here, there) = pending.popLast() {
            for otherChild in other.nodes[there].children {
                let source = other.nodes[otherChild]
                let mine = child(of: here, name: source.name, location: source.location)
                nodes[mine].seconds += source.seconds
                pending.append((mine, otherChild))
            }
        }
    }

    public var totalSeconds: Double { nodes[0].seconds }

    /// The tree without the nodes narrower than `fraction` of the root: a frame under half a pixel
    /// wide is not drawn anyway, and leaving it out keeps a page of 10,000 distinct stacks small.
    /// A parent keeps its whole time, so the cut shows as the gap under it.
    public func pruned(below fraction: Double) -> FlameTree {
        var kept = FlameTree(rootName: nodes[0].name)
        kept.nodes[0].seconds = nodes[0].seconds
        let minimum = nodes[0].seconds * fraction
        var pending = [(0, 0)]
        while let (there, here) = pending.popLast() {
            for child in nodes[there].children where nodes[child].seconds >= minimum {
                let source = nodes[child]
                let index = kept.child(of: here, name: source.name, location: source.location)
                kept.nodes[index].seconds = source.seconds
                pending.append((child, index))
            }
        }
        return kept
    }

    private mutating func child(of parent: Int, name: String, location: String?) -> Int {
        if let existing = nodes[parent].childByName[name] { return existing }
        let index = nodes.count
        nodes.append(Node(name: name, location: location, seconds: 0))
        nodes[parent].children.append(index)
        nodes[parent].childByName[name] = index
        return index
    }
}
