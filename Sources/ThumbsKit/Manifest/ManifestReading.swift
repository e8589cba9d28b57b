import Foundation

extension JSONCoding {
    /// Reads a manifest, with a message a person understands when it cannot.
    public static func readManifest(at path: String) throws(RunError) -> Manifest {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .usage("no manifest at \(path) (thumbs run writes OUT/manifest.json)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .usage("cannot read manifest \(path): \(error.localizedDescription)")
        }
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
