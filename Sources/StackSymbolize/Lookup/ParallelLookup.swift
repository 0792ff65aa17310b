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

    /// Whether `run` answers a batch of `count` addresses on two threads.
    static func usesThreads(for count: Int) -> Bool { count >= minimumForThreads && ProcessInfo.processInfo.activeProcessorCount > 1 }

    /// Also demangles the names found, on both threads, into `names`. The second thread starts at
    /// once: it opens its handle and reads the ranges of half the units while this one reads the
    /// other half; then each looks up the addresses of its own units.
    static func run(_ image: DebugImage, _ addresses: [UInt64], names: inout NameCache) -> [RawLookup] {
        guard usesThreads(for: addresses.count) else {
            return image.lookupBatch(addresses, releasingPages: addresses.count >= DebugImage.batchReleasingPages)
        }
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
        // Split by address so each thread decodes a disjoint set of units.
        let sorted = addresses.sorted()
        let pivot = sorted[sorted.count / 2]
        let firstIndices = addresses.indices.filter { addresses[$0] < pivot }
        let secondIndices = addresses.indices.filter { addresses[$0] >= pivot }
        guard let second = opening.join() else { return image.lookupBatch(addresses) }
        let map = UnitAddressMap(firstUnits + second.units)
        image.adoptUnitMap(map)
        image.adoptProblem(second.problem)
        let worker = second.image
        let secondAddresses = secondIndices.map { addresses[$0] }
        let makesFullNames = names.makesFullNames
        let lookingUp = SecondThread { () -> sending (results: [RawLookup], names: NameCache, fallbacks: DecoderFallbacks) in
            worker.preloadSymbols()
            worker.adoptUnitMap(map)
            var results = worker.lookupBatch(secondAddresses)
            var secondNames = NameCache()
            secondNames.makesFullNames = makesFullNames
            secondNames.warm(&results)
            return (results, secondNames, worker.decoderFallbacks)
        }
        var firstResults = image.lookupBatch(firstIndices.map { addresses[$0] })
        names.warm(&firstResults)
        let (secondResults, secondNames, secondFallbacks) = lookingUp.join()
        names.merge(secondNames)
        image.adoptFallbacks(secondFallbacks)
        var results = [RawLookup](repeating: RawLookup(source: .none, frames: []), count: addresses.count)
        for (position, index) in firstIndices.enumerated() { results[index] = firstResults[position] }
        for (position, index) in secondIndices.enumerated() { results[index] = secondResults[position] }
        return results
    }

    /// The second thread's handle on the file, with the unit ranges it read and any problem found.
    private struct OpenedHalf {
        var image: DebugImage
        var units: [UnitRanges]
        var problem: String?
    }
}
