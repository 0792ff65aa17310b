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
    /// second thread's one of its own) and the half's positions in `addresses`. Without `prepared`
    /// the second thread starts at once: it opens its handle and reads the ranges of half the
    /// units while this one reads the other half. With it (`prepare`, done while the batch was
    /// being gathered) both go straight to the lookups. Each thread then looks up whole units,
    /// taken from either end of the batch's (`UnitClaims`).
    static func inHalves<Finished: Sendable>(
        _ image: DebugImage, _ addresses: [UInt64], names: inout NameCache, prepared: PreparedWorker? = nil,
        finish: @escaping @Sendable (inout [RawLookup], inout NameCache, [Int]) -> Finished
    ) -> (first: Half<Finished>, second: Half<Finished>) {
        // The second handle, ready for its half (lent to the second thread in its Sendable box).
        let second = prepared ?? openSecondHandle(image)
        let makesFullNames = names.makesFullNames
        guard second.worker != nil else {
            var secondNames = NameCache()
            secondNames.makesFullNames = makesFullNames
            var all = image.lookupBatch(addresses)
            var none: [RawLookup] = []
            let positions = Array(addresses.indices)
            let finished = finish(&all, &names, positions)
            return (Half(positions: positions, finished: finished), Half(positions: [], finished: finish(&none, &secondNames, [])))
        }
        // Each thread takes whole units, from either end of the batch's, until they meet.
        let groups = image.unitGroups(addresses)
        let claims = UnitClaims(count: groups.units.count)
        let uncovered = groups.uncovered
        let map = image.unitMap
        let lookingUp = SecondThread { () -> sending (half: Half<Finished>, fallbacks: DecoderFallbacks) in
            let worker = second.worker!
            worker.preloadSymbols()
            worker.adoptUnitMap(map)
            var (positions, lookups) = worker.lookupClaimed(
                groups, of: addresses, claims: claims, fromBack: true, uncovered: uncovered[(uncovered.count / 2)...])
            var names = NameCache()
            names.makesFullNames = makesFullNames
            let finished = finish(&lookups, &names, positions)
            return (Half(positions: positions, finished: finished), worker.decoderFallbacks)
        }
        var (positions, lookups) = image.lookupClaimed(
            groups, of: addresses, claims: claims, fromBack: false, uncovered: uncovered[..<(uncovered.count / 2)])
        let first = Half(positions: positions, finished: finish(&lookups, &names, positions))
        let (secondHalf, secondFallbacks) = lookingUp.join()
        image.adoptFallbacks(secondFallbacks)
        return (first, secondHalf)
    }

    /// The second handle on `image`'s file, both threads reading half the units' ranges for the
    /// unit map `image` then holds; no handle when it cannot be opened (the batch then runs on
    /// this thread).
    private static func openSecondHandle(_ image: DebugImage) -> PreparedWorker {
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
        guard let second = opening.join() else { return PreparedWorker(worker: nil) }
        image.adoptUnitMap(UnitAddressMap(firstUnits + second.units))
        image.adoptProblem(second.problem)
        return PreparedWorker(worker: second.image)
    }

    /// What `inHalves` reads before its lookups, read on another thread while the caller still
    /// gathers the batch: `image`'s unit map and symbol table, and a second handle on the file
    /// sharing both (nil when it cannot be opened). `image` must be left alone until `join()`.
    /// For `symbolicate` over 20,000 rows this took the 25 ms from the end of the rows to the
    /// first lookup off the critical path (docs/speed.md).
    static func prepare(_ image: DebugImage) -> SecondThread<PreparedWorker> {
        let lent = LentImage(image: image)
        let reopen = image.reopener()
        return SecondThread { () -> sending PreparedWorker in
            let image = lent.image
            let offsets = image.unitDIEOffsets()
            let map = UnitAddressMap(image.unitRanges(dieOffsets: offsets[...]))
            image.adoptUnitMap(map)
            image.preloadSymbols()
            guard let worker = try? reopen() else { return PreparedWorker(worker: nil) }
            // Its own unit table, as a handle that read half the ranges has (the lookups use it).
            _ = worker.unitDIEOffsets()
            worker.preloadSymbols()
            worker.adoptUnitMap(map)
            return PreparedWorker(worker: worker)
        }
    }

    /// A second handle on a file, ready for its half of a batch (`prepare`, `openSecondHandle`).
    struct PreparedWorker: @unchecked Sendable {
        /// Made on another thread and handed over at its join, then lent to the batch's second
        /// thread: one thread uses it at a time.
        let worker: DebugImage?
    }

    /// The image `prepare` reads on its thread. Unchecked: the thread that lends it touches none
    /// of the image's mutable state until it joins (`BuildSymbolizer.image(at:)` joins first).
    private struct LentImage: @unchecked Sendable {
        let image: DebugImage
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
