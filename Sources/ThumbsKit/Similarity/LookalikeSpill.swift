import Foundation

/// Look-alike groups over millions of hashes in bounded memory, for `thumbs
/// merge`: the rule of `LookalikeGroups` (an item joins the group of the
/// earliest earlier item within D bits), computed from files and the
/// merge's index instead of arrays of every hash.
///
/// The merge's first pass writes (position, hash) to a file under
/// `OUT/.thumbs/`. Then, by pigeonhole, two hashes within D bits agree
/// exactly on at least one of D + 1 chunks of their 64 bits. For each chunk,
/// the hashes are spread over partition files by the chunk's value, each
/// partition is read alone (about `partitionRecords` hashes), and every
/// bucket of equal chunk values is searched in memory with
/// `LookalikeGroups.earliestMatches` (multi-index hashing again, over the
/// other bits). Each item's earliest match over all chunks is kept in the
/// index (`earliest`), and one pass in position order follows the chains
/// into `similar` (position → the group's first item and the distance to
/// it). Work: D + 1 passes over the hashes plus the in-bucket searches, so
/// sub-quadratic as `LookalikeGroups`; memory: a partition and one bucket.
final class LookalikeSpill {
    /// Hashes a partition holds at most when they spread evenly: 8 MiB
    /// (smaller in tests, to exercise many partitions).
    let partitionRecords: Int
    private let folder: String
    private let name: String
    private let path: String
    private let fd: Int32
    private var buffer: [UInt64] = []
    private(set) var count = 0

    /// Files go in `folder`, named from `name` (a run's scratch files carry
    /// a name of their own in OUT/.thumbs/tmp).
    init(folder: String, name: String = "lookalike", partitionRecords: Int = 1 << 19) throws(RunError) {
        self.folder = folder
        self.name = name
        self.partitionRecords = partitionRecords
        path = folder + "/" + name + "-hashes.bin"
        do {
            try? PathChanges.remove(path)
            fd = try FileDescriptor.open(path, .readWrite, [.create, .truncate], permissions: 0o600)
        } catch {
            throw .fatal("cannot write \(path): \(error.text)")
        }
        buffer.reserveCapacity(1 << 14)
    }

    deinit {
        try? FileDescriptor.close(fd)
        try? PathChanges.remove(path)
    }

    func add(position: Int, hash: UInt64) throws(RunError) {
        buffer.append(UInt64(position))
        buffer.append(hash)
        count += 1
        if buffer.count >= 1 << 14 { try flush() }
    }

    private func flush() throws(RunError) {
        let failure = buffer.withUnsafeBytes { writeAll(fd, $0) }
        if failure != 0 { throw .fatal("cannot write \(path): \(errnoText(failure))") }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Fills `index`'s `similar` table and returns the groups' summary.
    func group(distance: Int, index: MergeIndex) throws(RunError) -> LookalikeGroups.Summary {
        try flush()
        guard distance > 0, count > 1 else { return LookalikeGroups.Summary() }
        do {
            let chunks = distance + 1
            var shift = 0
            let upsert = try index.database.prepare("""
                INSERT INTO earliest VALUES (?, ?, ?, ?) ON CONFLICT(pos) DO UPDATE
                SET cand = excluded.cand, cand_hash = excluded.cand_hash WHERE excluded.cand < earliest.cand
                """)
            for c in 0..<chunks {
                let bits = 64 / chunks + (c < 64 % chunks ? 1 : 0)
                try searchChunk(shift: shift, bits: bits, distance: distance, upsert: upsert)
                shift += bits
            }
            return try followChains(index)
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("look-alike grouping in \(folder): \(error)")
        }
    }

    /// One chunk: partition by its value, then search each bucket.
    private func searchChunk(shift: Int, bits: Int, distance: Int, upsert: SQLiteStatement) throws {
        var partitionBits = 0
        while partitionBits < bits, count >> partitionBits > partitionRecords { partitionBits += 1 }
        let partitions = 1 << partitionBits
        let mask = bits == 64 ? UInt64.max : (UInt64(1) << UInt64(bits)) - 1
        func value(_ hash: UInt64) -> UInt64 { (hash >> UInt64(shift)) & mask }
        // Spread (position, hash) over the partition files, in position order.
        let partitionPaths = (0..<partitions).map { folder + "/" + name + "-part-\($0).bin" }
        var descriptors: [Int32] = []
        defer {
            for fd in descriptors { try? FileDescriptor.close(fd) }
            for path in partitionPaths { try? PathChanges.remove(path) }
        }
        for path in partitionPaths {
            descriptors.append(try FileDescriptor.open(path, .readWrite, [.create, .truncate], permissions: 0o600))
        }
        var outgoing = [[UInt64]](repeating: [], count: partitions)
        func send(_ p: Int) throws {
            let failure = outgoing[p].withUnsafeBytes { writeAll(descriptors[p], $0) }
            if failure != 0 { throw RunError.fatal("cannot write \(partitionPaths[p]): \(errnoText(failure))") }
            outgoing[p].removeAll(keepingCapacity: true)
        }
        try readRecords(fd, count: count) { position, hash in
            let p = Int(value(hash) >> UInt64(bits - partitionBits))
            outgoing[p].append(position)
            outgoing[p].append(hash)
            if outgoing[p].count >= 8192 { try send(p) }
        }
        for p in 0..<partitions where !outgoing[p].isEmpty { try send(p) }
        outgoing = []
        let low = shift == 0 ? 0 : (UInt64(1) << UInt64(shift)) - 1
        for p in 0..<partitions {
            let records = Int((FileDescriptor.seekToEnd(descriptors[p]) ?? 0) / 16)
            guard records > 1 else { continue }
            var positions: [UInt64] = [], hashes: [UInt64] = []
            positions.reserveCapacity(records)
            hashes.reserveCapacity(records)
            try readRecords(descriptors[p], count: records) { position, hash in
                positions.append(position)
                hashes.append(hash)
            }
            // Buckets: equal chunk values, each in position order.
            let order = (0..<records).sorted { a, b in
                let va = value(hashes[a]), vb = value(hashes[b])
                return va != vb ? va < vb : a < b
            }
            var start = 0
            while start < order.count {
                var end = start + 1
                let v = value(hashes[order[start]])
                while end < order.count, value(hashes[order[end]]) == v { end += 1 }
                if end - start > 1 {
                    let members = order[start..<end]
                    // The chunk's bits are equal in the bucket: left out.
                    let values = members.map { i -> UInt64 in
                        let h = hashes[i]
                        return (h & low) | ((h >> UInt64(shift + bits)) << UInt64(shift))
                    }
                    let earliest = Self.earliest(values, distance: distance)
                    for (k, j) in earliest.enumerated() where j >= 0 {
                        let i = members[members.startIndex + k], m = members[members.startIndex + Int(j)]
                        upsert.bind(1, Int64(bitPattern: positions[i]))
                        upsert.bind(2, Int64(bitPattern: hashes[i]))
                        upsert.bind(3, Int64(bitPattern: positions[m]))
                        upsert.bind(4, Int64(bitPattern: hashes[m]))
                        try upsert.run()
                    }
                }
                start = end
            }
        }
    }

    /// The earliest earlier value within `distance` bits of each, or -1:
    /// pair by pair for a small bucket, multi-index hashing for a large one.
    static func earliest(_ values: [UInt64], distance: Int) -> [Int32] {
        guard values.count > 256 else {
            var result = [Int32](repeating: -1, count: values.count)
            for i in 1..<max(1, values.count) {
                for j in 0..<i where (values[i] ^ values[j]).nonzeroBitCount <= distance {
                    result[i] = Int32(j)
                    break
                }
            }
            return result
        }
        return LookalikeGroups.earliestMatches(values, maxDistance: distance)
    }

    /// Reads `count` (position, hash) records from the start of `fd`.
    private func readRecords(_ fd: Int32, count: Int, _ body: (UInt64, UInt64) throws -> Void) throws {
        var block = [UInt64](repeating: 0, count: 1 << 14)
        var offset = 0
        let total = count * 16
        while offset < total {
            let want = min(block.count * 8, total - offset)
            let n = try block.withUnsafeMutableBytes { raw in
                try FileDescriptor.read(fd, into: raw.baseAddress!, count: want, at: offset)
            }
            guard n > 0, n % 16 == 0 || n == want else { throw RunError.fatal("cannot read the look-alike spill in \(folder): it ended early") }
            let records = n / 16
            for r in 0..<records { try body(block[2 * r], block[2 * r + 1]) }
            offset += records * 16
            if n % 16 != 0 { throw RunError.fatal("cannot read the look-alike spill in \(folder): a short read") }
        }
    }

    /// Chains in position order: an item's group is its earliest match's.
    private func followChains(_ index: MergeIndex) throws -> LookalikeGroups.Summary {
        let db = index.database
        let pairs = try db.prepare("SELECT pos, hash, cand, cand_hash FROM earliest ORDER BY pos")
        let find = try db.prepare("SELECT rep, rep_hash FROM similar WHERE pos = ?")
        let insert = try db.prepare("INSERT INTO similar VALUES (?, ?, ?, ?)")
        while try pairs.step() {
            let position = pairs.int64(0), hash = UInt64(bitPattern: pairs.int64(1))
            var representative = pairs.int64(2), representativeHash = UInt64(bitPattern: pairs.int64(3))
            find.bind(1, representative)
            if try find.step() {
                representative = find.int64(0)
                representativeHash = UInt64(bitPattern: find.int64(1))
            }
            find.reset()
            insert.bind(1, position)
            insert.bind(2, representative)
            insert.bind(3, Int64(bitPattern: representativeHash))
            insert.bind(4, (hash ^ representativeHash).nonzeroBitCount)
            try insert.run()
        }
        let counts = try db.prepare("SELECT COUNT(*), COUNT(DISTINCT rep) FROM similar")
        _ = try counts.step()
        let members = counts.int(0), groups = counts.int(1)
        return LookalikeGroups.Summary(groups: groups, images: members + groups)
    }
}
