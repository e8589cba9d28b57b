import Foundation

/// Gives a duplicate its own output files: a hard link where the file system
/// allows it, else a copy; both land under the final name atomically.
enum OutputLinker {
    static func link(_ source: String, to target: String, writer: AtomicFile) throws(ItemError) {
        if source == target { return }
        let temp = writer.temporaryDirectory + "/" + UUID().uuidString + ".link"
        if hardLink(source, temp), (try? writer.place(temp, at: target)) != nil { return }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw ItemError.io("cannot copy \(source) to \(target): \(errnoText())")
        }
        try writer.write(data, to: target)
    }
}
