#if canImport(Glibc)
import Glibc
#endif

/// The calling thread's identity, for a lock that must know which thread
/// holds it (`SharedExclusiveLock.isExclusive`).
struct ThreadIdentity: Sendable {
    private let thread: pthread_t

    /// The thread that calls this.
    static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    /// Whether this is the calling thread.
    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }
}
