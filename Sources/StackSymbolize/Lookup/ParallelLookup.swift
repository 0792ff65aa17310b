import Foundation
import SystemIO

/// Splits a large batch over two threads, each with its own libdw handle on the same file
/// (libdw's lazy caches are not thread-safe).
enum ParallelLookup {
    /// Below this many addresses one thread answers the batch. Measured on the 2-core machine
    /// (perf stat, 5 runs each): the second thread takes 20-25% off the wall time but costs 15-35%
    /// more CPU and 10-25 MB more memory at 10,000 addresses (swift-help 57 against 73 ms wall, 80
    /// against 70 ms CPU; sourcekit-lsp 0.40 against 0.50 s wall, 0.59 against 0.44 s CPU): both
    /// threads decode their units more slowly than one thread decodes all of them, and each has its
    /// own handle, symbol table and caches. At 100,000 addresses it takes 30% off the wall time
    /// (sourcekit-lsp 0.95 against 1.35 s) for 10% more CPU; that is where it pays.
    static let minimumForThreads = 50_000

    /// Whether a batch of `count` addresses is answered on two threads (`inHalves`).
    static func usesThreads(for count: Int) -> Bool { count >= minimumForThreads && ProcessInfo.processInfo.activeProcessorCount > 1 }

    /// A batch of at least `minimumForThreads` addresses on two threads, each half finished on its
    /// own thread by `finish`, given the half's lookups, a name cache (this thread's `names`, the
    /// second thread's one of its own) and the half's positions in `addresses`. The second
    /// thread starts at once: it opens its handle and reads the ranges of half the units while this
    /// one reads the other half; then each looks up the addresses of its own units.
    static func inHalves<Finished: Sendable>(
        _ image: DebugImage, _ addresses: [UInt64], names: inout NameCache,
        finish: @escaping @Sendable (inout [RawLookup], inout NameCache, [Int]) -> Finished
    ) -> (first: Half<Finished>, second: Half<Finished>) {
        let reopen = image.reopener()
        let opening = SecondThread { () -> sending OpenedHalf? in
            guard let worker = try? reopen() else { return nil }
            // The second half of the unit map's units, while the first thread does the first half.
            let offsets = worker.unitDIEOffsets()
            let units = worker.unitRanges(dieOffsets: offsets[(offsets.count / 2)...])
            return OpenedHalf(image: worker, units: units, problem: worker.problemSoFar)
        }
        let offsets = image.unitDIEOffsets()
        let firstUnits = image.unitRanges(dieOffsets: offsets[..<(offsets.count / 2)])
        let makesFullNames = names.makesFullNames
        guard let second = opening.join() else {
            var secondNames = NameCache()
            secondNames.makesFullNames = makesFullNames
            var all = image.lookupBatch(addresses)
            var none: [RawLookup] = []
            let positions = Array(addresses.indices)
            let finished = finish(&all, &names, positions)
            return (Half(positions: positions, finished: finished), Half(positions: [], finished: finish(&none, &secondNames, [])))
        }
        // Split by address so each thread decodes a disjoint set of units.
        let sorted = addresses.sorted()
        let pivot = sorted[sorted.count / 2]
        let firstIndices = addresses.indices.filter { addresses[$0] < pivot }
        let secondIndices = addresses.indices.filter { addresses[$0] >= pivot }
        let map = UnitAddressMap(firstUnits + second.units)
        image.adoptUnitMap(map)
        image.adoptProblem(second.problem)
        let worker = second.image
        let secondAddresses = secondIndices.map { addresses[$0] }
        let lookingUp = SecondThread { () -> sending (finished: Finished, fallbacks: DecoderFallbacks) in
            worker.preloadSymbols()
            worker.adoptUnitMap(map)
            var results = worker.lookupBatch(secondAddresses)
            var names = NameCache()
            names.makesFullNames = makesFullNames
            let finished = finish(&results, &names, secondIndices)
            return (finished, worker.decoderFallbacks)
        }
        var firstResults = image.lookupBatch(firstIndices.map { addresses[$0] })
        let firstFinished = finish(&firstResults, &names, firstIndices)
        let (secondFinished, secondFallbacks) = lookingUp.join()
        image.adoptFallbacks(secondFallbacks)
        return (Half(positions: firstIndices, finished: firstFinished), Half(positions: secondIndices, finished: secondFinished))
    }

    /// One thread's share of a batch: what `finish` made of it, and its positions in the batch.
    struct Half<Finished> {
        var positions: [Int]
        var finished: Finished
    }

    /// The two halves' elements back in the batch's order (`count` of them).
    static func inOrder<Element>(_ first: Half<[Element]>, _ second: Half<[Element]>, filler: Element) -> [Element] {
        var elements = [Element](repeating: filler, count: first.positions.count + second.positions.count)
        for half in [first, second] {
            for (place, position) in half.positions.enumerated() { elements[position] = half.finished[place] }
        }
        return elements
    }

    /// The second thread's handle on the file, with the unit ranges it read and any problem found.
    private struct OpenedHalf {
        var image: DebugImage
        var units: [UnitRanges]
        var problem: String?
    }
}
