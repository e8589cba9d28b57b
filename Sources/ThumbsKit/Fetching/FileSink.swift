import NIOCore

/// Writes a body to a new file, chunk by chunk; removes it when abandoned.
final class FileSink {
    let path: String
    private var fd: Int32

    struct Failure: Error { var message: String }

    init(path: String) throws(Failure) {
        self.path = path
        do {
            fd = try FileDescriptor.open(path, .writeOnly, [.create, .exclusive], permissions: 0o600)
        } catch {
            throw Failure(message: "cannot write a download to \(path): \(error.text)")
        }
    }

    func write(_ buffer: ByteBuffer) throws(Failure) {
        let failure = buffer.withUnsafeReadableBytes { raw in writeAll(fd, raw) }
        if failure != 0 { throw Failure(message: "cannot write a download to \(path): \(errnoText(failure))") }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        let failure = writeAll(fd, bytes)
        if failure != 0 { throw Failure(message: "cannot write a download to \(path): \(errnoText(failure))") }
    }

    func close() throws(Failure) {
        guard fd >= 0 else { return }
        defer { fd = -1 }
        do {
            try FileDescriptor.close(fd)
        } catch {
            throw Failure(message: "cannot write a download to \(path): \(error.text)")
        }
    }

    func abandon() {
        if fd >= 0 { try? FileDescriptor.close(fd); fd = -1 }
        try? PathChanges.remove(path)
    }

    deinit {
        if fd >= 0 { try? FileDescriptor.close(fd) }
    }
}
