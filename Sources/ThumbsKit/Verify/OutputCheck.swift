import Dispatch
import Foundation

/// Checks a manifest against the files beside it: every output exists with
/// its recorded size, SHA-256 and dimensions, and its real dimensions lie
/// inside the box it was made for. Only regular files inside the manifest's
/// folder are opened (`ContainedFile`): an output path that leaves it
/// (`../`, absolute, through a symbolic link) is an `outside-folder` finding.
///
/// A file that no longer matches gets one content finding (missing, size or
/// hash, in that order of precedence) and, when its header still reads,
/// dimension findings from the file itself: the box is checked on the real
/// dimensions, so a manifest that lies about them gives one finding, not two.
public struct OutputCheck: Sendable {
    public var manifest: Manifest
    /// The folder output paths are relative to (the manifest's folder).
    public var root: String

    public init(manifest: Manifest, root: String) {
        self.manifest = manifest
        self.root = root
    }

    /// The findings in manifest order, and how many outputs were looked at.
    /// libvips must start (`VipsRuntime.start()`) for headers to be read;
    /// if it cannot, every output is reported unreadable.
    public func run() -> (findings: [VerifyFinding], outputs: Int) {
        try? VipsRuntime.start()
        let items = manifest.items
        let boxes = Dictionary(manifest.settings.sizes.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        let labels = manifest.settings.sizes.map(\.label)
        // Items are independent and reading files dominates: spread them over
        // the cores, each slot written by exactly one iteration.
        let perItem = UnsafeMutableBufferPointer<[VerifyFinding]>.allocate(capacity: items.count)
        perItem.initialize(repeating: [])
        defer { perItem.deinitialize(); perItem.deallocate() }
        let slots = SendableSlots(perItem)
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            slots.buffer[index] = check(items[index], boxes: boxes, labels: labels)
        }
        let outputs = items.reduce(0) { $0 + $1.outputs.count }
        return (perItem.flatMap { $0 }, outputs)
    }

    func check(_ item: ManifestItem, boxes: [String: ThumbSize], labels: [String]) -> [VerifyFinding] {
        var findings = PlaceholderCheck.findings(item)
        if item.status != .failed {
            let present = Set(item.outputs.map(\.size))
            for label in labels where !present.contains(label) {
                findings.append(VerifyFinding(.missingSize, id: item.id, "no output for size \(label)"))
            }
        }
        for output in item.outputs {
            findings += check(output, of: item, box: boxes[output.size])
        }
        return findings
    }

    /// Why verify does not open `path` (`RelativePath.isContained` refused
    /// it), in words that fit the path: only one that climbs out with `..`
    /// leads outside the folder, and only such a path is what a merge
    /// without `--copy` writes, so only it gets that hint. `256//p01.jpg`
    /// is a path no run writes, not one outside the folder.
    static func notContained(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if path.hasPrefix("/") {
            return "\(path) is an absolute path: it leads outside the manifest's folder, so verify does not open it"
        }
        if segments.contains("..") {
            let hint = path.hasPrefix("../") ? " (a merge without --copy refers to the shards' folders: verify each shard, or merge with --copy)" : ""
            return "\(path) leads outside the manifest's folder, so verify does not open it" + hint
        }
        let problem = path.isEmpty ? "it is empty" : path.utf8.contains(0) ? "it holds a NUL byte"
            : segments.contains("") ? "it has an empty segment" : "it has a \".\" segment"
        return "\(path) is not a plain relative path (\(problem)), so verify does not open it"
    }

    func check(_ output: ManifestOutput, of item: ManifestItem, box: ThumbSize?) -> [VerifyFinding] {
        var findings: [VerifyFinding] = []
        func finding(_ kind: VerifyFinding.Kind, _ message: String) {
            findings.append(VerifyFinding(kind, id: item.id, path: output.path, message))
        }
        if box == nil {
            finding(.unknownSize, "\(output.path): size \(output.size) is not one of the run's sizes (\(manifest.settings.sizes.map(\.label).joined(separator: ", ")))")
        }
        let bytes: Data
        do {
            bytes = try ContainedFile.read(output.path, under: root.isEmpty ? "." : root)
        } catch {
            switch error {
            case .outside:
                finding(.outsideFolder, Self.notContained(output.path))
            case .link(let link):
                finding(.outsideFolder, (link == output.path ? "\(output.path) is a symbolic link" : "\(output.path) goes through the symbolic link \(link)")
                        + ", and verify follows no link (one can lead outside the manifest's folder): it is not opened")
            case .missing:
                finding(.missingOutput, "\(output.path) does not exist")
            case .notRegular(let kind):
                finding(.unreadableOutput, "\(output.path) is a \(kind), not a regular file: it is not read")
            case .unreadable(let reason):
                finding(.unreadableOutput, "\(output.path) cannot be read: \(reason)")
            }
            return findings
        }
        if Int64(bytes.count) != output.bytes {
            finding(.sizeMismatch, "\(output.path) is \(bytes.count) bytes, the manifest says \(output.bytes)")
        } else if SHA256Hex.of(bytes) != output.sha256 {
            finding(.hashMismatch, "\(output.path) has changed since the run: its SHA-256 differs from the manifest")
        }
        guard let real = bytes.withUnsafeBytes({ OutputHeader.dimensions(of: $0) }) else {
            finding(.unreadableOutput, "\(output.path) is not an image libvips can read")
            return findings
        }
        if real.width != output.width || real.height != output.height {
            finding(.dimensionMismatch, "\(output.path) is \(real.width)×\(real.height), the manifest says \(output.width)×\(output.height)")
        }
        let boxToCheck = box ?? ThumbSize(parsing: output.size)
        if let boxToCheck, real.width > boxToCheck.width || real.height > boxToCheck.height {
            finding(.outsideBox, "\(output.path) is \(real.width)×\(real.height), larger than its box \(boxToCheck.width)×\(boxToCheck.height)")
        }
        return findings
    }
}

/// Lets `concurrentPerform` iterations write disjoint slots of one buffer.
private struct SendableSlots<Element>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Element>
    init(_ buffer: UnsafeMutableBufferPointer<Element>) { self.buffer = buffer }
}
