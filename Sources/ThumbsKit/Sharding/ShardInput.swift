import Foundation

/// One manifest given to `thumbs merge`: the shard's manifest, read as a
/// stream (`ManifestSource`: its header here, its items pass by pass), and
/// the folder (the shard's OUT) its output paths are relative to.
struct ShardInput {
    /// The manifest's path as the user gave it, for messages.
    var manifestPath: String
    /// The absolute, normalised folder that holds the manifest.
    var root: String
    /// The manifest without its items (`ManifestSource.header`).
    var manifest: Manifest
    var source: ManifestSource

    init(manifestPath: String, root: String, source: ManifestSource) {
        self.manifestPath = manifestPath
        self.root = root
        self.manifest = source.header
        self.source = source
    }

    /// Where a MANIFEST argument's manifest lies, found without reading it:
    /// the merge locks the shard's folder (`ShardLocks`) before it reads a
    /// byte of the manifest, which a shard still running may be rewriting.
    struct Location: Sendable {
        /// The argument as given.
        var argument: String
        /// The manifest's path: the argument, or `manifest.json` inside the
        /// folder it names (so `thumbs merge shards/* --out all` works too).
        var manifestPath: String
        /// The absolute, normalised folder that holds the manifest.
        var root: String
        var namesFolder: Bool

        init(_ argument: String) {
            self.argument = argument
            var isDirectory: ObjCBool = false
            namesFolder = FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) && isDirectory.boolValue
            manifestPath = namesFolder ? (argument as NSString).appendingPathComponent("manifest.json") : argument
            root = (RelativePath.absolute(manifestPath) as NSString).deletingLastPathComponent
        }

        /// Opens the manifest and reads its header (once its folder is locked).
        func load() throws(RunError) -> ShardInput {
            if namesFolder, !FileManager.default.fileExists(atPath: manifestPath) {
                throw .usage("\(argument) is a folder without a manifest.json: give the manifest of each shard")
            }
            return ShardInput(manifestPath: manifestPath, root: root, source: try ManifestSource.open(manifestPath))
        }
    }

    /// `shard 1/4 (shards/1/manifest.json)`, or the path alone for a manifest
    /// that is not a shard.
    var label: String {
        if let shard = manifest.shard { return "shard \(shard) (\(manifestPath))" }
        return manifestPath
    }
}
