import Foundation

/// `verify --against BASELINE --update`: the checked run becomes the
/// baseline. Each output is copied to the same relative path in the
/// baseline's folder, then the manifest over the baseline's manifest; the
/// lines say what was replaced.
///
/// Only regular files inside the run's folder are read (`ContainedFile`),
/// and nothing is written outside the baseline's folder: a path that leaves
/// it is refused without a lookup, and the writes go through `AtomicFile`
/// rooted at the baseline's folder (no link followed on the way).
public struct BaselineUpdate: Sendable {
    public var manifestPath: String
    public var baseline: BaselineLocation

    public init(manifestPath: String, baseline: BaselineLocation) {
        self.manifestPath = manifestPath
        self.baseline = baseline
    }

    /// The report's lines; throws `fatal` when the baseline cannot be written.
    public func run() throws(RunError) -> [String] {
        let manifest = try JSONCoding.readManifest(at: manifestPath)
        let old = try? JSONCoding.readManifest(at: baseline.manifest)
        let root = ManifestVerifier.folder(of: manifestPath)
        let files = AtomicFile(temporaryDirectory: baseline.root, root: baseline.root)
        var replaced = 0, added = 0, same = 0
        var written = Set<String>()
        // Every output is checked before any is written: a refusal leaves
        // the baseline as it was.
        let refused = manifest.items.flatMap(\.outputs).map(\.path).filter { path in
            let path = ContainedFile.withoutDoubledSlashes(path)
            return !RelativePath.isContained(path) || (try? ContainedFile.read(path, under: root)) == nil
        }
        guard refused.isEmpty else {
            throw .fatal("baseline not updated: \(refused.count) output\(refused.count == 1 ? "" : "s") cannot be read inside \(root)"
                         + " (\(refused.prefix(3).joined(separator: ", "))\(refused.count > 3 ? ", …" : "")); fix the run first")
        }
        for item in manifest.items {
            for output in item.outputs {
                let path = ContainedFile.withoutDoubledSlashes(output.path)
                guard let bytes = try? ContainedFile.read(path, under: root) else {
                    throw .fatal("baseline partly updated: \(output.path) could no longer be read inside \(root)")
                }
                let before = try? ContainedFile.read(path, under: baseline.root)
                if before == bytes {
                    same += 1
                } else {
                    do {
                        try files.write(bytes, to: baseline.root + "/" + path)
                    } catch {
                        throw .fatal("cannot update the baseline: \(error.message)")
                    }
                    if before == nil { added += 1 } else { replaced += 1 }
                }
                written.insert(path)
            }
        }
        let manifestBytes: Data
        do {
            manifestBytes = try Data(contentsOf: URL(fileURLWithPath: manifestPath))
            try files.write(manifestBytes, to: baseline.manifest)
        } catch let error as ItemError {
            throw .fatal("cannot update the baseline's manifest: \(error.message)")
        } catch {
            throw .fatal("cannot read \(manifestPath): \(error.localizedDescription)")
        }
        let stale = (old?.items ?? []).flatMap(\.outputs).map { ContainedFile.withoutDoubledSlashes($0.path) }
            .filter { !written.contains($0) }
        var lines = ["updated baseline \(baseline.root): \(replaced) output\(replaced == 1 ? "" : "s") replaced, \(added) added, "
                     + "\(same) unchanged; \(baseline.manifest) replaced (\(manifest.items.count) items, was \(old?.items.count ?? 0))"]
        if !stale.isEmpty {
            lines.append("\(stale.count) output\(stale.count == 1 ? "" : "s") of the old baseline no longer listed stay"
                         + " in \(baseline.root) (\(stale.prefix(3).joined(separator: ", "))\(stale.count > 3 ? ", …" : "")): remove them with git rm")
        }
        return lines
    }
}
