import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes a body to a new file, chunk by chunk; removes it when abandoned.
final class FileSink {
    let path: String
    private var fd: Int32

    struct Failure: Error { var message: String }

    init(path: String) throws(Failure) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(message: "cannot write a download to \(path): \(errnoText())") }
    }

    func write(_ buffer: ByteBuffer) throws(Failure) {
        let failure = buffer.withUnsafeReadableBytes { raw in writeAll(fd, raw) }
        if failure != 0 { throw Failure(message: "cannot write a download to \(path): \(errnoText(failure))") }
    }

    func close() throws(Failure) {
        guard fd >= 0 else { return }
        let status = Glibc.close(fd)
        fd = -1
        if status != 0 { throw Failure(message: "cannot write a download to \(path): \(errnoText())") }
    }

    func abandon() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
        unlink(path)
    }

    deinit {
        if fd >= 0 { _ = Glibc.close(fd) }
    }
}
