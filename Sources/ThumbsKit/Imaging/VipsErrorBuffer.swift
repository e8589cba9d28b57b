import CVips
import Foundation
import Synchronization

/// Makes each failed item's libvips message its own.
///
/// libvips keeps one error buffer for the whole process (`vips_verror`
/// appends to a static buffer under a global lock). Every thread writes to
/// it, libvips' worker threads included: a lazy decode fails on a worker
/// while the item's own thread waits in a resize or a save. So neither
/// "read what the buffer holds" nor per-thread capture gives an item its
/// own message at `--jobs 16`: before this, about one broken file in 200 got
/// another file's message, or none.
///
/// The mechanism is a quiescent diagnosis. Every item's libvips work runs
/// under a shared lock (`attributed`), and nothing is read from the buffer
/// while it is shared. When that work fails, the item takes the lock
/// exclusively (waiting for the libvips work in flight to end, while new
/// work waits), clears the buffer, runs the same work again on its own, and
/// reads the message then: only this item can have written it. Good images
/// pay two uncontended lock operations; each failure pays one drain.
///
/// Checked against libvips 8.14's `error.c`: there is no per-thread or
/// per-operation buffer, and `vips_error_freeze` is process-wide too.
/// Interposing `vips_verror` (libvips calls it through its PLT) would see
/// which thread wrote, but not which item a worker thread was serving.
enum VipsErrorBuffer {
    private static let lock = SharedExclusiveLock()

    /// Runs `body`, all the libvips work of one step of one item, and gives
    /// its result, or its failure with the item's own message.
    ///
    /// `body` must do the same thing when run a second time (the diagnosis
    /// runs it again), must not call `attributed` itself (the lock is not
    /// reentrant), and must release every libvips image it makes.
    static func attributed<T>(_ body: () throws(ImagingError) -> T) throws(ItemError) -> T {
        let first: Result<T, ImagingError> = lock.shared {
            do throws(ImagingError) { return .success(try body()) } catch { return .failure(error) }
        }
        switch first {
        case .success(let value):
            return value
        case .failure(let failure):
            if let settled = failure.settled { throw settled }
        }
        return try lock.exclusive { () throws(ItemError) -> T in
            defer { vips_error_clear() }
            var run = 1
            while true {
                vips_error_clear()
                foundEmpty.store(false, ordering: .relaxed)
                do throws(ImagingError) {
                    // Worked this time (memory was short?): the item is made.
                    return try body()
                } catch {
                    // Failed again with nothing in the buffer: once more,
                    // rather than give the item a bare "resize failed".
                    if foundEmpty.load(ordering: .relaxed), run < Self.diagnosisRuns {
                        run += 1
                        continue
                    }
                    throw error.itemError
                }
            }
        }
    }

    /// Runs of a failed step under the exclusive lock, at most, while libvips
    /// leaves its buffer empty. A failure that repeats always has a message
    /// in libvips 8.14; under heavy load one diagnosis in a full test run
    /// found none (a truncated JPEG, "resize failed" instead of "Premature
    /// end of input"), so a second run is cheaper than a message that says
    /// nothing. Failures only: good images never get here.
    static let diagnosisRuns = 2

    /// Set by `read` when a diagnosis found the buffer empty; only the
    /// thread that holds the lock exclusively reads or writes it.
    private static let foundEmpty = Atomic<Bool>(false)

    /// libvips' messages as one line, when they can only be the caller's:
    /// during a diagnosis (`attributed`), the buffer text or `fallback`
    /// when libvips left none. Nil while libvips work is shared.
    static func read(fallback: String) -> String? {
        guard lock.isExclusive else { return nil }
        if let text = take() { return text }
        foundEmpty.store(true, ordering: .relaxed)
        return fallback
    }

    /// The buffer's text, read alone: for libvips' start, before any item.
    static func readAlone() -> String? {
        lock.exclusive { take() }
    }

    /// Takes the buffer (copies and clears it) as one readable line.
    private static func take() -> String? {
        guard let copy = vips_error_buffer_copy() else { return nil }
        defer { g_free(copy) }
        let text = String(cString: copy)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        var seen = Set<String>()
        let unique = text.filter { seen.insert($0).inserted }
        return unique.isEmpty ? nil : unique.joined(separator: "; ")
    }
}
