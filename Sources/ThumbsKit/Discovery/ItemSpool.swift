import Foundation

/// The file that holds a run's items for `SourceItems`: records appended as
/// discovery finds them, read back with `pread` through a few windows of
/// the file, so that a million items cost the memory of their index only
/// (one offset per `blockItems` items: 0.125 bytes each).
///
/// The file is unlinked as soon as it is made: it goes with its descriptor,
/// when the spool goes or the process dies, and never stays in OUT.
///
/// Not thread-safe: `SourceItems` locks around it.
final class ItemSpool {
    /// Items per entry of `blockOffsets`: reaching item i reads past at
    /// most this many records from the block's start (fewer when a window
    /// remembers where its last record ended).
    static let blockItems = 64
    /// Bytes per read window. Readers go forward, each in its own window:
    /// the run's two cursors (the next item to start, the next to write)
    /// and one more. A window is refilled by one `pread`.
    static let windowBytes = 128 << 10
    static let windowCount = 3
    /// Bytes gathered before one `write`.
    static let writeBytes = 256 << 10

    private let fd: Int32
    /// Set when the name could not be removed at once: removed at the end.
    private var leftoverPath: String?
    private(set) var count = 0
    /// File offset of item k * blockItems.
    private var blockOffsets: [Int64] = []
    /// Bytes in the file; `pending` follows them.
    private var fileSize: Int64 = 0
    private var pending: [UInt8] = []
    /// The first write that failed; the spool is then incomplete.
    private(set) var failure: SystemError?
    private var windows: [Window]
    private var clock = 0

    /// A part of the file read into memory, and where its last reader
    /// stopped: the next record's index and offset.
    private struct Window {
        var buffer: UnsafeMutableRawPointer
        var start: Int64 = 0
        var length = 0
        var lastUse = 0
        var nextIndex = -1
        var nextOffset: Int64 = 0
    }

    init(folder: String) throws(SystemError) {
        let path = DiscoveryScratch.path(in: folder, prefix: "items", suffix: ".spool")
        fd = try FileDescriptor.open(path, .readWrite, [.create, .exclusive, .noFollow], permissions: 0o600)
        do {
            try PathChanges.remove(path)
        } catch {
            leftoverPath = path
        }
        windows = (0..<Self.windowCount).map { _ in
            Window(buffer: UnsafeMutableRawPointer.allocate(byteCount: Self.windowBytes, alignment: 16))
        }
    }

    deinit {
        for window in windows { window.buffer.deallocate() }
        try? FileDescriptor.close(fd)
        if let leftoverPath { try? PathChanges.remove(leftoverPath) }
    }

    func append(_ item: SourceItem) {
        guard failure == nil else { return }
        if count % Self.blockItems == 0 { blockOffsets.append(fileSize + Int64(pending.count)) }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: 4))
        SourceItemCoding.encode(item, into: &pending)
        let length = UInt32(pending.count - start - 4)
        for shift in 0..<4 { pending[start + shift] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(shift))) }
        count += 1
        if pending.count >= Self.writeBytes { flush() }
    }

    /// Writes what is gathered; `keepBuffer` false when writing is done.
    func flush(keepBuffer: Bool = true) {
        if failure == nil, !pending.isEmpty {
            let code = pending.withUnsafeBytes { writeAll(fd, $0) }
            if code == 0 { fileSize += Int64(pending.count) } else { failure = SystemError(code: code) }
        }
        if keepBuffer { pending.removeAll(keepingCapacity: true) } else { pending = [] }
    }

    /// Item `index`, read back. The file is this process's own: a read
    /// that fails (an I/O error on the scratch disk) stops the process with
    /// the reason, as running out of memory would.
    func item(at index: Int) -> SourceItem {
        record(index, SourceItemCoding.decode)
    }

    /// Only the id of item `index`.
    func id(at index: Int) -> String {
        record(index, SourceItemCoding.decodeID)
    }

    private func record<T>(_ index: Int, _ decode: (UnsafeRawBufferPointer) -> T?) -> T {
        precondition(index >= 0 && index < count, "SourceItems: index \(index) out of 0..<\(count)")
        precondition(failure == nil, "SourceItems: the spool file could not be written: \(failure!.text)")
        if !pending.isEmpty { flush() }
        // From the start of its block, or from where a window's reader
        // stopped, if that is nearer.
        var current = index / Self.blockItems * Self.blockItems
        var offset = blockOffsets[index / Self.blockItems]
        for window in windows where window.nextIndex <= index && window.nextIndex > current {
            (current, offset) = (window.nextIndex, window.nextOffset)
        }
        while current < index {
            offset += 4 + Int64(length(at: offset))
            current += 1
        }
        let length = length(at: offset)
        let value = withBytes(at: offset + 4, count: length) { bytes in
            guard let value = decode(bytes) else {
                preconditionFailure("SourceItems: record \(index) of the spool file is damaged")
            }
            return value
        }
        if let used = window(holding: offset + 4, count: length) {
            windows[used].nextIndex = index + 1
            windows[used].nextOffset = offset + 4 + Int64(length)
        }
        return value
    }

    private func length(at offset: Int64) -> Int {
        withBytes(at: offset, count: 4) { bytes in
            Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        }
    }

    private func window(holding offset: Int64, count: Int) -> Int? {
        for index in windows.indices
        where windows[index].start <= offset && offset + Int64(count) <= windows[index].start + Int64(windows[index].length) {
            return index
        }
        return nil
    }

    /// Calls `body` with `count` bytes of the file at `offset`.
    private func withBytes<T>(at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        clock += 1
        if count > Self.windowBytes {
            // A record larger than a window (a list entry's many fields).
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            defer { buffer.deallocate() }
            readFully(into: buffer, count: count, at: offset)
            return body(UnsafeRawBufferPointer(start: buffer, count: count))
        }
        let index: Int
        if let found = window(holding: offset, count: count) {
            index = found
        } else {
            index = windows.indices.min { windows[$0].lastUse < windows[$1].lastUse }!
            // From the page below `offset` when the bytes still fit.
            let aligned = offset & ~4095
            let start = offset + Int64(count) - aligned <= Int64(Self.windowBytes) ? aligned : offset
            let length = min(Int64(Self.windowBytes), fileSize - start)
            readFully(into: windows[index].buffer, count: Int(length), at: start)
            windows[index].start = start
            windows[index].length = Int(length)
            windows[index].nextIndex = -1
        }
        windows[index].lastUse = clock
        let window = windows[index]
        return body(UnsafeRawBufferPointer(start: window.buffer + Int(offset - window.start), count: count))
    }

    private func readFully(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) {
        var done = 0
        while done < count {
            let n: Int
            do {
                n = try FileDescriptor.read(fd, into: buffer + done, count: count - done, at: Int(offset) + done)
            } catch {
                preconditionFailure("SourceItems: cannot read the spool file: \(error.text)")
            }
            precondition(n > 0, "SourceItems: the spool file is shorter than written")
            done += n
        }
    }
}
