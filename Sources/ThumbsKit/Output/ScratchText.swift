import Foundation

/// Text a run makes item by item and copies into the manifest's header at
/// the end (`ManifestLines`' inserts): `run.shardOrder` and the `gone` ids.
/// Written to a scratch file of OUT/.thumbs/tmp (or the system's) as it is
/// made, 64 KB at a time, so that a run of ten million items never holds it.
final class ScratchText: @unchecked Sendable {
    let path: String
    private var fd: Int32
    private var pending = JSONText()
    /// Whether anything was written (a separator goes before each later piece).
    private(set) var isEmpty = true

    init(path: String) throws(RunError) {
        self.path = path
        do {
            fd = try FileDescriptor.open(path, .readWrite, [.create, .truncate, .noFollow], permissions: 0o600)
        } catch {
            throw .fatal("cannot write \(path): \(error.text)")
        }
        pending.reserve(1 << 16 + 4096)
    }

    deinit { remove() }

    /// Adds a piece, `separator` first unless it is the first.
    func add(separator: String, _ body: (inout JSONText) -> Void) throws(RunError) {
        if !isEmpty { pending.raw(separator) }
        isEmpty = false
        body(&pending)
        if pending.count >= 1 << 16 { try flush() }
    }

    func finishWriting() throws(RunError) {
        try flush()
    }

    private func flush() throws(RunError) {
        guard fd >= 0, pending.count > 0 else { return }
        let code = pending.bytes.withUnsafeBytes { writeAll(fd, $0) }
        pending.removeAll()
        if code != 0 { throw .fatal("cannot write \(path): \(errnoText(code))") }
    }

    /// The text from its start, in chunks of up to 1 MB (after `finishWriting`).
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBytes { raw in
                try FileDescriptor.read(fd, into: raw.baseAddress!, count: raw.count, at: offset)
            }
            if n <= 0 { return }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            offset += n
        }
    }

    /// The whole text (tests, small runs).
    var text: String {
        var bytes: [UInt8] = []
        try? forEachChunk { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    func remove() {
        if fd >= 0 { try? FileDescriptor.close(fd) }
        fd = -1
        try? PathChanges.remove(path)
    }
}
