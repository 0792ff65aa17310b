import Foundation
import TestSupport
import Testing

@testable import StackSymbolize
@testable import SymbolNames

/// The warm path: answers from the on-disk index equal the debug file's, and the index follows
/// the debug file when it changes.
@Suite struct SymbolIndexTests {
    let folder: URL
    let debugFile: String
    let indexFolder: String
    let stack: [FrameRequest]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-sym-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let original = try Fixtures.path("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp")
        debugFile = folder.appendingPathComponent("YuiApp").path
        try FileManager.default.copyItem(atPath: original, toPath: debugFile)
        indexFolder = folder.appendingPathComponent("index").path
        let build = try #require(try Fixtures.appTable().builds["130"])
        // Every function start, and each call's return address as a caller frame.
        stack =
            build.functions.map { FrameRequest(image: "YuiApp", uuid: build.uuid, offset: $0.start_offset, isReturnAddress: false) }
            + build.functions.flatMap { function in
                function.calls.map { FrameRequest(image: "YuiApp", uuid: build.uuid, offset: $0.return_offset, isReturnAddress: true) }
            }
            + [FrameRequest(image: "YuiApp", uuid: build.uuid, offset: 0x10, isReturnAddress: false)]
    }

    /// The indexes in the folder (not its `.locks` folder).
    func indexFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: indexFolder).filter { $0.hasSuffix(".yuisym") }.sorted()
    }

    @Test func indexAnswersAsTheDebugFileDoes() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let direct = try BuildSymbolizer(debugFiles: [debugFile]).symbolicate(stack)
        let building = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        let reading = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        #expect(building == direct)
        #expect(reading == direct)
        let files = try indexFiles()
        #expect(files.count == 1)
        #expect(files.allSatisfy { $0.hasSuffix(".yuisym") && $0.hasPrefix("4C4C4C4C-5555-3144-A1B2-000000000130-") })
    }

    @Test func changedDebugFileGetsANewIndex() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        let later = Date(timeIntervalSinceNow: 60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: debugFile)
        let answers = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        #expect(try indexFiles().count == 2)
        #expect(answers == (try BuildSymbolizer(debugFiles: [debugFile]).symbolicate(stack)))
    }

    @Test func corruptIndexIsRebuilt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        let path = (indexFolder as NSString).appendingPathComponent(try #require(try indexFiles().first))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        #expect(throws: SymbolizeError.self) { try SymbolIndex(path: path) }
        let answers = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        #expect(answers == (try BuildSymbolizer(debugFiles: [debugFile]).symbolicate(stack)))
        #expect(try indexFiles().count == 1)
    }

    /// One flipped byte, the size unchanged: the checksum catches it and the index is rebuilt
    /// (never trusted), byte for byte what a fresh build writes.
    @Test func flippedByteIsCaughtAndRebuilt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let direct = try BuildSymbolizer(debugFiles: [debugFile]).symbolicate(stack)
        _ = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        let path = (indexFolder as NSString).appendingPathComponent(try #require(try indexFiles().first))
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        for position in [64, whole.count / 3, whole.count / 2, whole.count - 9] {
            var damaged = whole
            damaged[position] ^= 0x10
            try damaged.write(to: URL(fileURLWithPath: path))
            #expect(throws: SymbolizeError.self) { try SymbolIndex(path: path) }
            let answers = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
            #expect(answers == direct)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == whole)
        }
    }

    /// An index whose checksum was made to fit its damaged body (a crafted file in the cache
    /// folder): whatever its records, names and offsets say, lookups through every path (frames,
    /// the text writer's bytes, two threads' mapping, the symbol table) end without a crash.
    @Test func craftedIndexNeverCrashesALookup() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: indexFolder).symbolicate(stack)
        let path = (indexFolder as NSString).appendingPathComponent(try #require(try indexFiles().first))
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let body = SymbolIndexFormat.headerSize..<(whole.count - 8)
        let addresses = stack.map { 0x1_0000_0000 &+ $0.offset } + [0, 0x1_0000_4000, .max]
        var generator = SplitMix64(seed: 23)
        var opened = 0
        for round in 0..<300 {
            var damaged = whole
            for _ in 0..<(1 + round % 12) {
                damaged[body.lowerBound + Int(generator.next() % UInt64(body.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            // The checksum made to fit: the damage is in what the records say, not caught at opening.
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let checksum = try IndexChecksum.of(path: path, length: whole.count - 8)
            withUnsafeBytes(of: checksum.littleEndian) { damaged.replaceSubrange((whole.count - 8)..., with: $0) }
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            guard let index = try? SymbolIndex(path: path) else { continue }
            opened += 1
            for address in addresses {
                _ = index.lookup(address)
            }
            let frames = IndexedFrames(index: index, debugFile: debugFile)
            var cache = IndexedFrames.Cache()
            for pass in 0..<2 {
                if pass == 1 { frames.readThroughMapping() }
                for address in addresses {
                    _ = frames.frames(at: address, cache: &cache) { frame, _ in _ = frame.simplifiedName.count + (frame.file?.count ?? 0) }
                }
            }
        }
        #expect(opened == 300, "every damaged index opens: its checksum fits")
    }

    /// A debug file direct mode refuses (a unit libdw cannot read) is refused with the same error
    /// through the index, and no index is written for it.
    @Test func refusedFileIsRefusedThroughTheIndexToo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let corrupt = Repository.badInputCorpus.appendingPathComponent("macho-debug-abbrev-zeroed.macho").path
        func failure(_ indexFolder: String?) throws -> String {
            let symbolizer = try BuildSymbolizer(debugFiles: [corrupt], indexFolder: indexFolder)
            do {
                _ = try symbolizer.lookup(addresses: [0x4000], uuid: nil)
                return "no error"
            } catch {
                return error.description
            }
        }
        let direct = try failure(nil)
        #expect(direct.contains("corrupt DWARF"))
        #expect(try failure(indexFolder) == direct)
        #expect(((try? indexFiles()) ?? []).isEmpty)
    }
}

/// The bucket table that narrows the search of the sampled starts: for any address, the count of
/// samples at or below it lies within the bounds it gives (gaps, dense runs, repeats, the ends).
/// The index file's layout as declared in `SymbolIndexFormat` (Header, LocationRecord, SymbolRecord):
/// the fields tile their records exactly, and a real index has its values where they say.
@Suite struct SymbolIndexLayoutTests {
    typealias Format = SymbolIndexFormat

    @Test func declaredFieldsTileTheirRecords() {
        let header = [
            Format.Header.magic, Format.Header.version, Format.Header.reserved, Format.Header.entryCount, Format.Header.locationCount,
            Format.Header.symbolCount, Format.Header.stringCount, Format.Header.stringBytes, Format.Header.textBase,
            Format.Header.addressBase, Format.Header.symbolBase,
        ]
        let widths = [8, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8]
        #expect(zip(header, widths).map { $0 + $1 } == Array(header.dropFirst()) + [Format.Header.size])
        #expect(Format.Header.size == 80 && Format.headerSize == 80)
        let location = [
            Format.LocationRecord.name, Format.LocationRecord.file, Format.LocationRecord.line, Format.LocationRecord.parentAndFlags,
            Format.LocationRecord.functionStart,
        ]
        #expect(location == [0, 4, 8, 12, 16] && Format.LocationRecord.size == 20)
        let symbol: [Int] = [Format.SymbolRecord.start, Format.SymbolRecord.length, Format.SymbolRecord.name]
        #expect(symbol == [0, 4, 8])
        #expect(Format.SymbolRecord.size == 12)
    }

    @Test func aBuiltIndexHasItsValuesAtTheDeclaredOffsets() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-index-layout-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let debugFile = try Fixtures.path("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp")
        _ = try BuildSymbolizer(debugFiles: [debugFile], indexFolder: folder).lookup(addresses: [0x1_0000_40b0], uuid: nil)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".yuisym") })
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        #expect(u64(Format.Header.magic) == Format.magic)
        #expect(u32(Format.Header.version) == Format.version)
        #expect(u64(Format.Header.textBase) == 0x1_0000_0000)
        let index = try SymbolIndex(path: folder + "/" + name)
        #expect(index.textBase == u64(Format.Header.textBase))
        // The entry starts follow the header: entries × 4 bytes, then the entry locations.
        let entries = Int(u64(Format.Header.entryCount))
        let locations = Int(u64(Format.Header.locationCount))
        #expect(entries > 0 && locations > 0)
        func aligned(_ value: Int) -> Int { (value + 7) & ~7 }
        let locationsOffset = aligned(aligned(Format.Header.size + entries * 4) + entries * 4)
        // Every location's parent is lower than itself or none (the reader's walk relies on it).
        for number in 0..<locations {
            let parent = u32(locationsOffset + number * Format.LocationRecord.size + Format.LocationRecord.parentAndFlags) & Format.parentMask
            #expect(parent == Format.parentMask || Int(parent) < number)
        }
    }
}

@Suite struct SampleBucketsTests {
    @Test func boundsHoldTheCountOfSamplesAtOrBelowEveryAddress() {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<40 {
            let count = trial == 0 ? 0 : Int.random(in: 1...3_000, using: &generator)
            let spread: UInt64 = [0x100, 0x1_0000, 0x4000_0000, 0xffff_ffff][trial % 4]
            let base = UInt64.random(in: 0...0x1_0000_0000, using: &generator)
            let samples = (0..<count).map { _ in base + UInt64.random(in: 0...spread, using: &generator) }.sorted()
            let buckets = SampleBuckets(samples)
            var probes = samples + samples.map { $0 &- 1 } + samples.map { $0 &+ 1 } + [0, base, .max, .max - 1]
            probes += (0..<500).map { _ in base &+ UInt64.random(in: 0...(spread + 10), using: &generator) }
            for address in probes {
                var expected = 0
                var above = samples.count
                while expected < above {
                    let middle = (expected + above) / 2
                    if samples[middle] <= address { expected = middle + 1 } else { above = middle }
                }
                let (low, high) = buckets.candidates(address, sampleCount: samples.count)
                #expect(low <= expected && expected <= high, "trial \(trial): \(address) has \(expected) at or below, bounds \(low)..\(high)")
            }
        }
    }
}
