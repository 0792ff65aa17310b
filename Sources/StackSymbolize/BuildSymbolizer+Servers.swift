import Foundation

// Debug files the store lacks, fetched from symbol servers (`Remote/`) into the build's folder and
// then answered from like any other file of it.
extension BuildSymbolizer {
    /// Fetches, in one parallel round, the files of every UUID in `stacks` that nothing local
    /// answers, so the lookups after it (and `appImage`) see them as if they had been imported.
    public func fetchMissingFiles(_ stacks: [[FrameRequest]]) {
        guard symbolServers != nil else { return }
        var wanted: [String: String?] = [:]
        var order: [String] = []
        var last: String?
        for stack in stacks {
            for request in stack {
                guard let uuid = request.uuid, uuid != last else { continue }
                last = uuid
                guard indexByUUID[uuid] == nil, let canonical = UUIDText.normalized(uuid), wanted[canonical] == nil,
                    resolveLocally(canonical: canonical) == nil
                else { continue }
                wanted[canonical] = request.image
                order.append(canonical)
            }
        }
        fetch(order.map { SymbolServerFetcher.Wanted(uuid: $0, image: wanted[$0] ?? nil) })
    }

    /// Fetches `wanted` into the build's folder and adds what came as the build's own files.
    func fetch(_ wanted: [SymbolServerFetcher.Wanted]) {
        guard let fetcher = symbolServers, let store, !wanted.isEmpty,
            let build = ownBuild.flatMap(StoreBuild.folderName(fromVersion:))
        else { return }
        let placed = fetcher.fetch(wanted, root: store.root, build: build)
        pendingWarnings += fetcher.takeWarnings()
        guard !placed.isEmpty else { return }
        addOwnFiles(Set(placed.values).sorted())
        for uuid in placed.keys { storeMisses.remove(uuid) }
        // The store's index and what it said about image names are read again with the new files.
        store.reload()
        knownImageNames = [:]
    }
}
