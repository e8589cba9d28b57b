import Foundation

/// `OUT/manifest.json`: one entry per source image, in source order
/// (schema `thumbs.manifest/1`, PRODUCT.md "Files written").
public struct Manifest: Sendable, Codable, Equatable {
    public static let schemaName = "thumbs.manifest/1"

    public var schema: String = Manifest.schemaName
    public var tool: Tool
    public var startedAt: String
    public var finishedAt: String
    public var settings: OutputSettings
    /// Set when this OUT holds one shard of a larger run.
    public var shard: Shard?
    /// True when the run was interrupted: `items` lists the finished ones only.
    public var interrupted: Bool?
    /// Sources of the previous manifest that were not found this run.
    public var gone: [String]?
    /// Counters that only the run knows (downloads, ignored files, wall time).
    public var run: RunCounters?
    public var items: [ManifestItem]
    /// The last runs' records of outputs this run left in place without
    /// producing them: sources it did not see (gone while `--max-prune`
    /// refused, or without `--prune`; below a folder it could not read; past
    /// a list cut short), and outputs of a size or format no longer asked
    /// for. Not items: never counted, reported or verified; kept so that the
    /// next run still knows them (a remounted disk is found unchanged, a
    /// later `--prune` removes what they left). Written after `items`.
    public var kept: [ManifestItem]?

    public struct Tool: Sendable, Codable, Equatable {
        public var name: String
        public var version: String
        public var libvips: String

        public init(name: String = "thumbs", version: String = ThumbsVersion.current, libvips: String) {
            self.name = name
            self.version = version
            self.libvips = libvips
        }
    }

    public init(
        tool: Tool, startedAt: String, finishedAt: String, settings: OutputSettings,
        shard: Shard? = nil, interrupted: Bool? = nil, gone: [String]? = nil,
        run: RunCounters? = nil, items: [ManifestItem], kept: [ManifestItem]? = nil
    ) {
        self.tool = tool
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.settings = settings
        self.shard = shard
        self.interrupted = interrupted
        self.gone = gone
        self.run = run
        self.items = items
        self.kept = kept
    }
}
