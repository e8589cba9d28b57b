import Foundation

/// Look-alike groups over millions of hashes in bounded memory, for `thumbs
/// merge`: the rule of `LookalikeGroups` (an item joins the group of the
/// earliest earlier item within D bits), computed from files and the
/// merge's index instead of arrays of every hash.
///
/// The merge's first pass writes (position, hash) to a file under
/// `OUT/.thumbs/`. Copies of a hash are set aside first (`setCopiesAside`):
/// only distinct hashes are searched. Then, by pigeonhole, two hashes within D bits agree
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
        var distinctPath: String?
        defer { if let distinctPath { try? PathChanges.remove(distinctPath) } }
        do {
            // The hashes searched: every one, or (past a partition) each
            // distinct hash once, at its first position.
            var source = (fd: fd, records: count)
            if count > partitionRecords {
                let path = folder + "/" + name + "-distinct.bin"
                distinctPath = path
                source = try setCopiesAside(into: index, distinctPath: path)
            }
            defer { if source.fd != fd { try? FileDescriptor.close(source.fd) } }
            let chunks = distance + 1
            var shift = 0
            let upsert = try index.database.prepare("""
                INSERT INTO earliest VALUES (?, ?, ?, ?) ON CONFLICT(pos) DO UPDATE
                SET cand = excluded.cand, cand_hash = excluded.cand_hash WHERE excluded.cand < earliest.cand
                """)
            for c in 0..<chunks {
                let bits = 64 / chunks + (c < 64 % chunks ? 1 : 0)
                try searchChunk(source, shift: shift, bits: bits, distance: distance, upsert: upsert)
                shift += bits
            }
            return try followChains(index)
        } catch let error as RunError {
            throw error
        } catch {
            throw .fatal("look-alike grouping in \(folder): \(error)")
        }
    }

    /// Sets copies aside: an item whose hash an earlier item has (copies of
    /// one photo share their pHash; a bench corpus is a million of them)
    /// matches what that first copy matches, or the first copy itself when
    /// nothing earlier is near, and `followChains` resolves either to the
    /// same group. So each copy goes straight into `earliest` with its first
    /// copy as candidate, and only the distinct hashes, each at its first
    /// position, are written to `distinctPath` for the search.
    ///
    /// Without this, identical hashes share every chunk value: all of them
    /// land in one partition and one bucket, which are then as large as the
    /// copies are many (+50 MB at a million, and growing). Here the hashes
    /// are spread over files by a mix of all their bits, and each file is
    /// read with a table of its distinct hashes only.
    private func setCopiesAside(into index: MergeIndex, distinctPath: String) throws -> (fd: Int32, records: Int) {
        let partitions = 2 * count / partitionRecords + 1
        // Positions stay in order within each file.
        let files = try spread((fd, count), into: "copies", partitions: partitions) { hash in
            Int(((hash &* 0x9E37_79B9_7F4A_7C15) >> 32) % UInt64(partitions))
        }
        let distinct = try FileDescriptor.open(distinctPath, .readWrite, [.create, .truncate], permissions: 0o600)
        var distinctCount = 0
        do {
            let insert = try index.database.prepare("INSERT INTO earliest VALUES (?, ?, ?, ?)")
            var kept: [UInt64] = []
            kept.reserveCapacity(1 << 14)
            for p in 0..<partitions {
                var first: [UInt64: UInt64] = [:]
                try readRecords(files.descriptors[p], count: files.records(p)) { position, hash in
                    if let earlier = first[hash] {
                        insert.bind(1, Int64(bitPattern: position))
                        insert.bind(2, Int64(bitPattern: hash))
                        insert.bind(3, Int64(bitPattern: earlier))
                        insert.bind(4, Int64(bitPattern: hash))
                        try insert.run()
                        return
                    }
                    first[hash] = position
                    kept.append(position)
                    kept.append(hash)
                    distinctCount += 1
                    if kept.count >= 1 << 14 { try Self.write(&kept, to: distinct, distinctPath) }
                }
                if !kept.isEmpty { try Self.write(&kept, to: distinct, distinctPath) }
            }
        } catch {
            try? FileDescriptor.close(distinct)
            throw error
        }
        return (distinct, distinctCount)
    }

    /// One chunk: partition by its value, then search each bucket.
    private func searchChunk(_ source: (fd: Int32, records: Int), shift: Int, bits: Int, distance: Int, upsert: SQLiteStatement) throws {
        var partitionBits = 0
        while partitionBits < bits, source.records >> partitionBits > partitionRecords { partitionBits += 1 }
        let partitions = 1 << partitionBits
        let mask = bits == 64 ? UInt64.max : (UInt64(1) << UInt64(bits)) - 1
        func value(_ hash: UInt64) -> UInt64 { (hash >> UInt64(shift)) & mask }
        let files = try spread(source, into: "part", partitions: partitions) { hash in
            Int(value(hash) >> UInt64(bits - partitionBits))
        }
        let low = shift == 0 ? 0 : (UInt64(1) << UInt64(shift)) - 1
        for p in 0..<partitions {
            let records = files.records(p)
            guard records > 1 else { continue }
            var positions: [UInt64] = [], hashes: [UInt64] = []
            positions.reserveCapacity(records)
            hashes.reserveCapacity(records)
            try readRecords(files.descriptors[p], count: records) { position, hash in
                positions.append(position)
                hashes.append(hash)
            }
            // Buckets: equal chunk values, each in position order (the
            // distinct hashes are not in position order in their file).
            let order = (0..<records).sorted { a, b in
                let va = value(hashes[a]), vb = value(hashes[b])
                return va != vb ? va < vb : positions[a] < positions[b]
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
                    let earliest = Self.earliest(values, distance: distance, bits: 64 - bits)
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
    /// `bits`: the low bits the values use (`LookalikeGroups.earliestMatches`).
    static func earliest(_ values: [UInt64], distance: Int, bits: Int = 64) -> [Int32] {
        if values.count > 256, let result = earliestAmongCopies(values, distance: distance, bits: bits) { return result }
        return earliestOfDistinct(values, distance: distance, bits: bits)
    }

    /// `earliest` for a bucket in which many hashes are the very same (copies
    /// of one photo: a folder of a million identical images is one bucket of
    /// a million): the search runs over the distinct values, each at its
    /// first position. A value's earliest match is the earliest match of its
    /// first copy, or that first copy itself. Nil when most values differ
    /// (the search over all of them costs no more).
    static func earliestAmongCopies(_ values: [UInt64], distance: Int, bits: Int = 64) -> [Int32]? {
        let sorted = values.indices.sorted { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 }
        // Each position's distinct value, numbered in order of first position.
        var firstPosition: [Int32] = []
        var group = [Int32](repeating: 0, count: values.count)
        var start = 0
        var firsts: [(position: Int32, run: Range<Int>)] = []
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count, values[sorted[end]] == values[sorted[start]] { end += 1 }
            firsts.append((Int32(sorted[start]), start..<end))
            start = end
        }
        guard firsts.count * 2 <= values.count else { return nil }
        firsts.sort { $0.position < $1.position }
        var distinct: [UInt64] = []
        distinct.reserveCapacity(firsts.count)
        for (d, first) in firsts.enumerated() {
            distinct.append(values[Int(first.position)])
            firstPosition.append(first.position)
            for k in first.run { group[sorted[k]] = Int32(d) }
        }
        let matches = earliestOfDistinct(distinct, distance: distance, bits: bits)
        return values.indices.map { i in
            let d = Int(group[i])
            if matches[d] >= 0 { return firstPosition[Int(matches[d])] }
            return firstPosition[d] == Int32(i) ? -1 : firstPosition[d]
        }
    }

    private static func earliestOfDistinct(_ values: [UInt64], distance: Int, bits: Int) -> [Int32] {
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
        return LookalikeGroups.earliestMatches(values, maxDistance: distance, bits: bits)
    }

    /// The records of `source` spread over `partitions` files (named
    /// `<name>-<label>-<p>.bin`) by `partition` of their hash, each file in
    /// the order read. The files go when the result does.
    private func spread(
        _ source: (fd: Int32, records: Int), into label: String, partitions: Int, by partition: (UInt64) -> Int
    ) throws -> PartitionFiles {
        let files = try PartitionFiles(prefix: folder + "/" + name + "-" + label, count: partitions)
        var outgoing = [[UInt64]](repeating: [], count: partitions)
        try readRecords(source.fd, count: source.records) { position, hash in
            let p = partition(hash)
            outgoing[p].append(position)
            outgoing[p].append(hash)
            if outgoing[p].count >= 8192 { try Self.write(&outgoing[p], to: files.descriptors[p], files.paths[p]) }
        }
        for p in 0..<partitions where !outgoing[p].isEmpty {
            try Self.write(&outgoing[p], to: files.descriptors[p], files.paths[p])
        }
        return files
    }

    /// Appends `records` to `fd` and empties them.
    private static func write(_ records: inout [UInt64], to fd: Int32, _ path: String) throws {
        let failure = records.withUnsafeBytes { writeAll(fd, $0) }
        if failure != 0 { throw RunError.fatal("cannot write \(path): \(errnoText(failure))") }
        records.removeAll(keepingCapacity: true)
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

/// Scratch files of (position, hash) records, one per partition, removed
/// with this object.
private final class PartitionFiles {
    let paths: [String]
    private(set) var descriptors: [Int32] = []

    init(prefix: String, count: Int) throws {
        paths = (0..<count).map { prefix + "-\($0).bin" }
        do {
            for path in paths {
                descriptors.append(try FileDescriptor.open(path, .readWrite, [.create, .truncate], permissions: 0o600))
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Records in partition `p`.
    func records(_ p: Int) -> Int { Int((FileDescriptor.seekToEnd(descriptors[p]) ?? 0) / 16) }

    private func remove() {
        for fd in descriptors { try? FileDescriptor.close(fd) }
        descriptors = []
        for path in paths { try? PathChanges.remove(path) }
    }
}
