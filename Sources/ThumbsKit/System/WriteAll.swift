#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes every byte of `bytes` to `fd`, going on after short writes and
/// interrupted calls (EINTR). Returns 0, or the errno of the write that
/// failed. The one write loop of thumbs: downloads (`FileSink`) and atomic
/// files (`AtomicFile`) both go through it.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard let base = bytes.baseAddress else { return 0 }
    if let code = WriteFaults.injected(fd) { return code }
    var offset = 0
    while offset < bytes.count {
        let n = Glibc.write(fd, base + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += n
    }
    return 0
}

/// Write failures a test injects (a full disk where no small file system
/// can be mounted): `inject` a rule that, given the path a descriptor is
/// open on, returns the errno its writes fail with (nil: they succeed).
/// Unset, as in every real run, a write costs one uncontended lock more.
enum WriteFaults {
    private static let rule = Mutex<(@Sendable (String) -> Int32?)?>(nil)

    static func inject(_ rule: (@Sendable (String) -> Int32?)?) {
        self.rule.withLock { $0 = rule }
    }

    /// The errno a write to `fd` fails with, when a rule says so.
    static func injected(_ fd: Int32) -> Int32? {
        guard let rule = rule.withLock({ $0 }) else { return nil }
        return rule(DurableSteps.path(of: fd))
    }
}
