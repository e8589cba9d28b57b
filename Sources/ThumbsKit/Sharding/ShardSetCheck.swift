import Foundation

/// Refuses a set of manifests that are not the complete shards of one run,
/// before anything is written. Every refusal is a usage error (exit 2) whose
/// message names the manifests involved and what to do.
enum ShardSetCheck {
    /// The shards ordered by index, and whether they recorded the run's
    /// order (`ShardOrder`).
    struct Checked {
        var shards: [ShardInput]
        /// Every shard recorded `run.shardOrder`: `MergedStream` follows it.
        var useOrder: Bool
        /// The shards recorded different orders: reported after the items
        /// are checked (`MergeCheckPass`), as the checks always came in
        /// that order.
        var orderProblem: RunError?
    }

    /// Checks what the manifests' headers tell (the items are checked as
    /// they stream by: `MergeCheckPass`); throws the first problem found.
    static func check(_ inputs: [ShardInput]) throws(RunError) -> Checked {
        guard !inputs.isEmpty else { throw .usage("no MANIFEST given: name the manifest.json of every shard") }
        try checkDistinctFiles(inputs)
        let shards = try checkAllAreShards(inputs)
        try checkNotInterrupted(shards)
        let ordered = try checkCompleteSet(shards)
        try checkSameSettings(ordered)
        let (useOrder, problem) = checkOrderTexts(ordered)
        return Checked(shards: ordered, useOrder: useOrder, orderProblem: problem)
    }

    /// Whether every shard recorded the run's order, and the same one (by
    /// its SHA-256: they walked and read the same sources). No order when
    /// no shard, or not every shard, recorded one (a version before
    /// `ShardOrder`, or shards of mixed versions).
    private static func checkOrderTexts(_ ordered: [ShardInput]) -> (Bool, RunError?) {
        let texts = ordered.map(\.source.order)
        guard let first = texts[0], texts.allSatisfy({ $0 != nil }) else { return (false, nil) }
        if let index = texts.firstIndex(where: { $0!.digest != first.digest }) {
            return (true, .usage("\(ordered[index].label) and \(ordered[0].label) found different items in their run: "
                                 + "the shards were run over different sources, or the sources changed between them; "
                                 + "run every shard again over the same sources"))
        }
        return (true, nil)
    }

    /// After a pass over the merged stream: the order was a list of indices
    /// and named each shard as many times as it has items.
    static func checkOrderCounts(_ ordered: [ShardInput], _ stream: MergedStream) throws(RunError) {
        if stream.orderDamaged {
            throw .usage("\(ordered[0].label) has a damaged run.shardOrder: run the shards again with this thumbs")
        }
        for (index, input) in ordered.enumerated() where stream.ordered[index] != stream.itemsRead(index) {
            throw .usage("\(input.label) lists \(stream.itemsRead(index)) items, but its run found \(stream.ordered[index]) for it: "
                         + "the manifest was changed after the run; run that shard again")
        }
    }

    /// The same manifest named twice (also through different spellings).
    private static func checkDistinctFiles(_ inputs: [ShardInput]) throws(RunError) {
        var seen: [String: ShardInput] = [:]
        for input in inputs {
            let key = RelativePath.absolute(input.manifestPath)
            if let earlier = seen[key] {
                let spelling = earlier.manifestPath == input.manifestPath ? "" : " (also as \(input.manifestPath))"
                throw .usage("\(earlier.label) is given twice\(spelling): give each shard's manifest once")
            }
            seen[key] = input
        }
    }

    private static func checkAllAreShards(_ inputs: [ShardInput]) throws(RunError) -> [(Shard, ShardInput)] {
        let notShards = inputs.filter { $0.manifest.shard == nil }
        if notShards.count == inputs.count {
            throw .usage("none of the manifests is a shard (\(inputs.map(\.manifestPath).joined(separator: ", "))): "
                         + "merge joins the manifests written by `thumbs run --shard I/N`")
        }
        if let first = notShards.first {
            throw .usage("\(first.manifestPath) is not a shard (it was written without --shard) and cannot be merged with shards; "
                         + "give only the manifests of `thumbs run --shard I/N`")
        }
        return inputs.map { ($0.manifest.shard!, $0) }
    }

    private static func checkNotInterrupted(_ shards: [(Shard, ShardInput)]) throws(RunError) {
        if let (_, input) = shards.first(where: { $0.1.manifest.interrupted == true }) {
            throw .usage("\(input.label) was interrupted and lists only the images it finished: "
                         + "run that shard again with the same command to finish it, then merge")
        }
    }

    /// All shards of one N, each index exactly once, none missing.
    private static func checkCompleteSet(_ shards: [(Shard, ShardInput)]) throws(RunError) -> [ShardInput] {
        let count = shards[0].0.count
        if let (_, other) = shards.first(where: { $0.0.count != count }) {
            throw .usage("\(shards[0].1.label) and \(other.label) belong to sets of different sizes: "
                         + "merge the shards of one run, all made with the same N in --shard I/N")
        }
        var byIndex = [ShardInput?](repeating: nil, count: count)
        for (shard, input) in shards {
            if let earlier = byIndex[shard.index] {
                throw .usage("shard \(shard) is given twice: \(earlier.manifestPath) and \(input.manifestPath); "
                             + "give each shard once")
            }
            byIndex[shard.index] = input
        }
        let missing = byIndex.indices.filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            let one = missing.count == 1
            let names = missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
                + (missing.count > 10 ? " and \(missing.count - 10) more" : "")
            throw .usage("\(one ? "shard" : "shards") \(names) \(one ? "is" : "are") missing (\(shards.count) of \(count) given): "
                         + "merge needs the manifest of every shard; run the missing \(one ? "shard" : "shards") "
                         + "or give \(one ? "its" : "their") manifest")
        }
        return byIndex.map { $0! }
    }

    private static func checkSameSettings(_ ordered: [ShardInput]) throws(RunError) {
        let reference = ordered[0]
        for input in ordered.dropFirst() where input.manifest.settings != reference.manifest.settings {
            let differences = settingsDifferences(reference.manifest.settings, input.manifest.settings)
            throw .usage("\(input.label) was made with other settings than \(reference.label) (\(differences.joined(separator: "; "))): "
                         + "run every shard with the same options")
        }
    }

    /// `quality 80 vs 70`, one per field that differs.
    static func settingsDifferences(_ a: OutputSettings, _ b: OutputSettings) -> [String] {
        var differences: [String] = []
        func compare<T: Equatable>(_ name: String, _ x: T, _ y: T, _ text: (T) -> String) {
            if x != y { differences.append("\(name) \(text(x)) vs \(text(y))") }
        }
        compare("--size", a.sizes.map(\.label), b.sizes.map(\.label)) { $0.joined(separator: ",") }
        compare("--fit", a.fit, b.fit) { $0.rawValue }
        compare("--crop", a.crop, b.crop) { $0.rawValue }
        compare("--enlarge", a.enlarge, b.enlarge) { $0 ? "on" : "off" }
        compare("--format", a.format, b.format) { $0.rawValue }
        compare("--quality", a.quality, b.quality) { "\($0)" }
        compare("--keep-metadata", a.keepMetadata, b.keepMetadata) { $0 ? "on" : "off" }
        if differences.isEmpty { differences.append("sizes given differently") }
        return differences
    }

    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\n", with: "\\n") + "'"
    }
}
