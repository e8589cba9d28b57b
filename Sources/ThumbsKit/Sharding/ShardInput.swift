import Foundation

/// One manifest given to `thumbs merge`: the shard's manifest and the folder
/// (the shard's OUT) its output paths are relative to.
public struct ShardInput: Sendable {
    /// The manifest's path as the user gave it, for messages.
    public var manifestPath: String
    /// The absolute, normalised folder that holds the manifest.
    public var root: String
    public var manifest: Manifest

    public init(manifestPath: String, root: String, manifest: Manifest) {
        self.manifestPath = manifestPath
        self.root = root
        self.manifest = manifest
    }

    /// Reads a manifest; a folder stands for the `manifest.json` inside it,
    /// so `thumbs merge shards/* --out all` works too.
    public static func load(_ argument: String) throws(RunError) -> ShardInput {
        var isDirectory: ObjCBool = false
        var path = argument
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
            path = (argument as NSString).appendingPathComponent("manifest.json")
            guard FileManager.default.fileExists(atPath: path) else {
                throw .usage("\(argument) is a folder without a manifest.json: give the manifest of each shard")
            }
        }
        let manifest = try JSONCoding.readManifest(at: path)
        let absolute = RelativePath.absolute(path)
        return ShardInput(manifestPath: path, root: (absolute as NSString).deletingLastPathComponent, manifest: manifest)
    }

    /// `shard 1/4 (shards/1/manifest.json)`, or the path alone for a manifest
    /// that is not a shard.
    var label: String {
        if let shard = manifest.shard { return "shard \(shard) (\(manifestPath))" }
        return manifestPath
    }
}
