/// The merge's first pass over the shards' items, in merged order, one at
/// a time: what `ShardSetCheck` cannot see in the headers is checked here,
/// and the merge's index is filled.
///
/// Refused (exit 2), as they are met: an id in two shards (or twice in
/// one), an id in a shard its hash does not name, an output path that
/// leaves its folder or that two shards both list; after the pass, an order
/// (`run.shardOrder`) that differs between shards, is damaged, or does not
/// name each shard as often as it has items. Then (exit 3) a thumbnail a
/// shard lists that is not there.
///
/// Filled: `MergeIndex` (ids, output paths, each hash's leader) and the
/// look-alike spill (`LookalikeSpill`: position and perceptual hash).
enum MergeCheckPass {
    static func run(_ checked: ShardSetCheck.Checked, index: MergeIndex, spill: LookalikeSpill) throws(RunError) {
        let shards = checked.shards
        let count = shards.count
        // Only what the pass checks and indexes: a third of an item.
        let stream = try MergedStream(shards, useOrder: checked.useOrder, fields: [.sha256, .read, .outputs, .phash])
        var missing: (path: String, shard: Int)?
        var missingCount = 0
        do {
            while let (item, k) = try stream.next() {
                let input = shards[k]
                let position = stream.position - 1
                if let earlier = try index.addID(item.id, shard: k) {
                    throw RunError.usage("item \(ShardSetCheck.quoted(item.id)) is in both \(shards[earlier].label) and \(input.label): "
                                         + "the shards overlap; were they run over different sources, or copied from another run?")
                }
                let home = ShardPartition.shard(of: item.id, count: count)
                if home != k {
                    throw RunError.usage("item \(ShardSetCheck.quoted(item.id)) is in \(input.label) but belongs to shard \(home)/\(count): "
                                         + "the manifest was not written by this version's --shard; run the shards again with this thumbs")
                }
                for output in item.outputs {
                    guard RelativePath.isContained(output.path) else {
                        throw RunError.usage("item \(ShardSetCheck.quoted(item.id)) of \(input.label) has an output path outside its folder: "
                                             + ShardSetCheck.quoted(output.path))
                    }
                    if let earlier = try index.addOutput(output.path, shard: k) {
                        throw RunError.usage("\(shards[earlier].label) and \(input.label) both list the output \(output.path): "
                                             + "the shards disagree on output names; run them over the same sources")
                    }
                    let path = input.root + "/" + output.path
                    if FileInfo.of(path)?.kind != .regular {
                        if missing == nil { missing = (path, k) }
                        missingCount += 1
                    }
                }
                if item.status == .ok, let key = item.identityKey {
                    try index.offerLeader(sha: key, position: position, id: item.id)
                }
                if item.status != .failed, let hash = item.phash.flatMap(PerceptualHash.parse) {
                    try spill.add(position: position, hash: hash)
                }
            }
        } catch let error as RunError {
            throw error
        } catch let error as SQLiteDatabase.Failure {
            throw .fatal("cannot index the shards: \(error.message)")
        } catch {
            throw .fatal("cannot index the shards: \(error)")
        }
        do {
            try index.dropChecks()
        } catch {
            throw .fatal("cannot index the shards: \(error.message)")
        }
        if let problem = checked.orderProblem { throw problem }
        if checked.useOrder { try ShardSetCheck.checkOrderCounts(shards, stream) }
        if let (path, k) = missing {
            let more = missingCount > 1 ? " and \(missingCount - 1) more" : ""
            throw .fatal("\(path) listed by \(shards[k].label) is missing\(more): "
                         + "run that shard again with the same command (it remakes missing thumbnails), then merge")
        }
    }
}
