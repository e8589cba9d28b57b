import Foundation

/// The bytes of one source file, read into memory.
///
/// Files are read, never memory-mapped: a mapped file that is truncated
/// while it is read (`cp` over it, a sync tool rewriting it in place) kills
/// the whole process with SIGBUS, inside the hash or inside a decoder. A read
/// sees the change instead, and the item fails alone: size and modification
/// time are taken before and after the read, and when they differ, or the
/// file ends early, the item fails with `io` ("changed while being read").
///
/// Files up to `largeFile` use recycled buffers (`BufferRecycler`); larger
/// ones get a buffer of their own, given back to the system when done, so a
/// rare huge file does not stay resident in the recycler.
///
/// Only regular files are read: a FIFO, a device or a socket fails at once
/// (opened without blocking), so `/dev/zero` or a pipe nobody writes to can
/// neither hang a run nor be read forever.
///
/// Immutable after creation, so it may move between the pool and the task
/// that waits for it.
public final class SourceBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    private let storage: Storage
    public let count: Int

    private enum Storage { case none, recycled, own(capacity: Int) }

    /// Files larger than this are read into a buffer of their own (anonymous
    /// memory from `mmap`, returned when done) instead of a recycled one; the
    /// file itself is never mapped.
    static let largeFile = 16 << 20

    /// Points in `init(path:)` where tests change the file under the reader.
    enum Stage: Sendable { case willOpen, opened, read }

    /// Called at every `Stage` with the path; nil except in tests.
    static let testHook = TestHook()

    /// Reads `path`. Throws `io` for a file that cannot be opened, is not a
    /// regular file, or changes while it is read.
    public init(path: String) throws(ItemError) {
        Self.testHook.call(path, .willOpen)
        // O_NONBLOCK: opening a FIFO must not wait for a writer.
        let fd: Int32
        do {
            fd = try FileDescriptor.open(path, .readOnly, .nonBlocking)
        } catch {
            throw ItemError.io("cannot open \(path): \(error.text)")
        }
        defer { try? FileDescriptor.close(fd) }
        let before: FileInfo
        do {
            before = try FileInfo.lookup(descriptor: fd)
        } catch {
            throw ItemError.io("cannot read \(path): \(error.text)")
        }
        guard before.kind == .regular else {
            throw ItemError.io("cannot read \(path): \(Self.describe(before.kind)), not a regular file")
        }
        Self.testHook.call(path, .opened)
        let size = Int(before.size)
        guard size > 0 else {
            base = nil
            storage = .none
            count = 0
            return
        }
        let buffer: UnsafeMutableRawPointer
        let owner: Storage
        if size > Self.largeFile {
            do {
                buffer = try AnonymousMemory.map(size)
            } catch {
                throw ItemError.io("cannot read \(path): no memory for \(size) bytes (\(error.text))")
            }
            owner = .own(capacity: size)
        } else {
            buffer = BufferRecycler.shared.take(size)
            owner = .recycled
        }
        func release() {
            if case .own(let capacity) = owner { AnonymousMemory.release(buffer, capacity) } else { BufferRecycler.shared.give(buffer) }
        }
        var offset = 0
        while offset < size {
            let n: Int
            do {
                n = try FileDescriptor.read(fd, into: buffer + offset, count: size - offset)
            } catch {
                release()
                throw ItemError.io("cannot read \(path): \(error.text)")
            }
            if n == 0 {
                release()
                throw Self.changed(path, detail: "it ended after \(offset) of \(size) bytes")
            }
            offset += n
        }
        Self.testHook.call(path, .read)
        let after = FileInfo.of(descriptor: fd)
        if after?.size != before.size || after?.modifiedSeconds != before.modifiedSeconds
            || after?.modifiedNanoseconds != before.modifiedNanoseconds {
            release()
            throw Self.changed(path, detail: after?.size != before.size
                ? "its size went from \(before.size) to \(after?.size ?? 0) bytes" : "it was modified")
        }
        base = buffer
        storage = owner
        count = size
    }

    deinit {
        guard let base else { return }
        switch storage {
        case .none: break
        case .recycled: BufferRecycler.shared.give(base)
        case .own(let capacity): AnonymousMemory.release(base, capacity)
        }
    }

    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Hex SHA-256 of the bytes.
    public func sha256() -> String {
        withBytes { SHA256Hex.of($0) }
    }

    private static func changed(_ path: String, detail: String) -> ItemError {
        ItemError.io("\(path) changed while being read (\(detail)); it is read again on the next run")
    }

    private static func describe(_ kind: FileInfo.Kind) -> String {
        switch kind {
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .directory: "a folder"
        default: "a special file"
        }
    }

    /// A closure tests install to act between the steps of a read (truncate
    /// the file after it was opened, delete it before). Unset in a real run:
    /// then each call costs one lock.
    final class TestHook: @unchecked Sendable {
        private let lock = NSLock()
        private var body: (@Sendable (String, Stage) -> Void)?

        func set(_ body: (@Sendable (String, Stage) -> Void)?) {
            lock.lock()
            self.body = body
            lock.unlock()
        }

        func call(_ path: String, _ stage: Stage) {
            lock.lock()
            let body = self.body
            lock.unlock()
            body?(path, stage)
        }
    }
}
