import Foundation

extension JSONCoding {
    /// Reads a manifest, with a message a person understands when it cannot
    /// (what the path is, when it is not a regular file: `ManifestFile`).
    public static func readManifest(at path: String) throws(RunError) -> Manifest {
        let data = try ManifestFile.read(path)
        do {
            let manifest = try ManifestLineReader.decode(data) ?? JSONDecoder().decode(Manifest.self, from: data)
            guard manifest.schema == Manifest.schemaName else {
                throw RunError.usage("\(path) is not a thumbs manifest (schema \(manifest.schema))")
            }
            return manifest
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("\(path) is not a valid thumbs manifest: \(describe(error))")
        }
    }
}
