import Foundation
import SystemIO

/// What identifies a file's contents on disk cheaply: device, inode, size and modification time.
/// A debug file or index replaced or truncated after it was opened has another one.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var modifiedNanoseconds: Int64

    init?(path: String) {
        guard case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false) else { return nil }
        self.init(status)
    }

    init?(descriptor: Int32) {
        guard case .success(let status) = FileIO.status(ofDescriptor: descriptor, retryOnInterrupt: false) else { return nil }
        self.init(status)
    }

    private init(_ status: FileStatus) {
        device = status.device
        inode = status.inode
        size = status.size
        modified = status.modifiedSeconds
        modifiedNanoseconds = status.modifiedNanoseconds
    }
}

/// When to look at a file's identity again during lookups one by one: a `stat` per frame would cost
/// more than the lookup, so once a second (the clock is read every 64 lookups).
struct IdentityCheckPace {
    private var lookups = 0
    private var last = ContinuousClock.now

    mutating func isDue() -> Bool {
        lookups += 1
        guard lookups & 63 == 0 || lookups == 1 else { return false }
        let now = ContinuousClock.now
        guard now - last >= .seconds(1) || lookups == 1 else { return false }
        last = now
        return true
    }
}
