import StackSymbolize

/// Which slice of a debug file `symbolicate --object` answers from: the one `--uuid` names, the
/// one of `--arch`'s architecture, or the only one.
enum SliceChoice {
    /// The architectures `--arch` takes, as atos and llvm-symbolizer spell them.
    static let architectures = ["arm64", "arm64e", "arm64_32", "armv7", "armv7s", "armv7k", "x86_64", "x86_64h", "i386"]

    /// The slice architectures that answer for `requested`, best first. An arm64e process runs
    /// arm64 code, so arm64e takes an arm64 slice when the file has no arm64e one (as the issue
    /// and dyld have it); the Mach-O reader names every 32-bit ARM slice `armv7` and reads
    /// x86_64h as `x86_64`, so those requests look for its names.
    static func candidates(for requested: String) -> [String] {
        switch requested {
        case "arm64e": ["arm64e", "arm64"]
        case "armv7s", "armv7k": ["armv7"]
        case "x86_64h": ["x86_64"]
        default: [requested]
        }
    }

    /// The UUID to answer from, or nil for the file's only slice (the symbolizer checks there is
    /// one and says so otherwise).
    ///
    /// - Throws: `SymbolizeError.badArgument` when `arch` names no slice of the file, or when a
    ///   file of several slices is given neither `--arch` nor `--uuid`.
    static func uuid(given uuid: String?, arch: String?, files: [DebugFileInfo]) throws(SymbolizeError) -> String? {
        if let uuid { return uuid }
        // One entry per UUID: a binary and the dSYM beside it are one slice.
        var slices: [(arch: String, uuid: String)] = []
        for file in files where !slices.contains(where: { $0.uuid == file.uuids[0] }) { slices.append((file.arch, file.uuids[0])) }
        let listed = slices.map { "\($0.arch) \($0.uuid)" }.joined(separator: ", ")
        let path = files.first?.path ?? ""
        guard let arch else {
            guard slices.count <= 1 else {
                throw SymbolizeError.badArgument(path: path, "has \(slices.count) slices (\(listed)); pick one with --arch or --uuid")
            }
            return nil
        }
        for candidate in candidates(for: arch) {
            if let slice = slices.first(where: { $0.arch == candidate }) { return slice.uuid }
        }
        throw SymbolizeError.badArgument(path: path, "no \(arch) slice (has \(listed))")
    }

    /// The image's addresses, for the hint that an address lies past it; nil when they cannot be
    /// told (an ELF file).
    static func extent(uuid: String?, files: [DebugFileInfo]) -> Range<UInt64>? {
        let chosen = uuid.flatMap(UUIDText.normalized).map { wanted in files.filter { $0.uuids.contains(wanted) } } ?? files
        guard let file = chosen.first else { return nil }
        return ImageExtent.addresses(of: file)
    }
}
