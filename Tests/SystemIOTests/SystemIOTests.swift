import Foundation
import Synchronization
import SystemIO
import Testing

@Suite struct FileIOTests {
    @Test func aFileThatIsNotThereIsNamedWithTheReason() throws {
        let path = "/nonexistent-\(UUID().uuidString)/rows.json"
        let error = try #require(throws: FileError.self) { try FileIO.openForReading(path) }
        #expect(error.description == "\(path): cannot open: No such file or directory")
        #expect(error.errno.code == ENOENT)
    }

    @Test func everyByteIsWrittenAndAFailedWriteNamesThePath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fileio-\(UUID().uuidString)").path
        defer { unlink(path) }
        let descriptor = try FileIO.createNew(path, mode: 0o600)
        let bytes = [UInt8](repeating: 7, count: 3 << 20)
        try bytes.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, path: path) }
        close(descriptor)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
        // The file exists now: creating it again is refused, and says so.
        let again = try #require(throws: FileError.self) { try FileIO.createNew(path, mode: 0o600) }
        #expect(again.description == "\(path): cannot create: File exists")
        // A descriptor opened for reading cannot be written.
        let reading = try FileIO.openForReading(path)
        defer { close(reading) }
        let failure = try #require(throws: FileError.self) {
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try FileIO.writeAll(reading, $0, path: path) }
        }
        #expect(failure.description == "\(path): cannot write: Bad file descriptor")
    }
}

@Suite struct SecondThreadTests {
    @Test func aResultComesBackFromTheOtherThread() {
        let worker = SecondThread { (1...1_000).reduce(0, +) }
        #expect(worker.join() == 500_500)
    }

    @Test func everyThreadRunsTheBodyOnceAndAllHaveFinishedOnReturn() {
        final class Tally: Sendable { let count = Mutex(0) }
        let tally = Tally()
        SecondThread.onThreads(4) { tally.count.withLock { $0 += 1 } }
        #expect(tally.count.withLock { $0 } == 4)
    }
}
