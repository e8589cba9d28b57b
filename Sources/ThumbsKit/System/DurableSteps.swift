#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The steps that decide what a power cut leaves, in the order thumbs takes
/// them: `fsync` of a file or folder, `rename`, `unlink`.
///
/// SQLite's and PostgreSQL's rule: a name is only durable once the folder
/// holding it is flushed. So a file is written, flushed, renamed into place,
/// and its folder flushed, before anything that relies on the new name (the
/// journal's removal relies on the manifest). The order lives in
/// `AtomicFile`, `Journal` and `ThumbsRun`; the System/ wrappers report each
/// step here, and a test that watches (`watch`) sees the order the calls
/// really took. Unwatched, a step costs one uncontended lock beside a
/// system call that waits on the disk.
enum DurableSteps {
    enum Step: Equatable, Sendable {
        /// `fsync` of the file or folder at this path.
        case synchronise(String)
        /// `rename` from the first path to the second.
        case rename(String, String)
        /// `unlink` of this path.
        case remove(String)
    }

    private static let watcher = Mutex<(@Sendable (Step) -> Void)?>(nil)

    /// Calls `watcher` with every step from now on (nil stops).
    static func watch(_ watcher: (@Sendable (Step) -> Void)?) {
        self.watcher.withLock { $0 = watcher }
    }

    /// Reports a step just taken; `step` is only built when watched.
    static func note(_ step: @autoclosure () -> Step) {
        guard let watcher = watcher.withLock({ $0 }) else { return }
        watcher(step())
    }

    /// The path a descriptor is open on (`/proc/self/fd`), for the steps
    /// taken by descriptor.
    static func path(of fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard count > 0 else { return "<fd \(fd)>" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
