import Foundation

/// The items of a run, in order: a collection that lives in a spool file
/// (`ItemSpool`) in a scratch folder rather than in memory, so that a run
/// over a million sources holds a few bytes per item, not a few hundred.
///
/// Discovery appends the items as it finds them (`append`), then they are
/// only read (`finishWriting` first). Reading is by index, from any
/// thread; the run reads forward with two cursors a few thousand items
/// apart, which the spool's read windows make one `pread` per 128 KB.
/// Random access works too, at the cost of a read.
///
/// Without a scratch folder (tests, a few items) the items stay in an
/// array.
public final class SourceItems: RandomAccessCollection, ExpressibleByArrayLiteral, @unchecked Sendable {
    private enum Storage {
        case memory([SourceItem])
        case spool(ItemSpool)
    }

    /// Guards `storage`: the spool's windows change on every read.
    private let lock = NSLock()
    private var storage: Storage
    /// The folder the spool is in, for the spools made from this one.
    let scratchFolder: String?

    public init(_ items: [SourceItem]) {
        storage = .memory(items)
        scratchFolder = nil
    }

    public convenience init(arrayLiteral items: SourceItem...) {
        self.init(items)
    }

    /// An empty collection whose items go to a new spool file in `folder`
    /// (OUT/.thumbs/tmp for a run), or to memory when `folder` is nil.
    init(scratchFolder folder: String?) throws(RunError) {
        scratchFolder = folder
        guard let folder else {
            storage = .memory([])
            return
        }
        do {
            storage = .spool(try ItemSpool(folder: folder))
        } catch {
            throw .fatal("cannot make a scratch file in \(folder) for the run's items: \(error.text)")
        }
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        lock.withLock {
            switch storage {
            case .memory(let items): items.count
            case .spool(let spool): spool.count
            }
        }
    }

    public subscript(position: Int) -> SourceItem {
        lock.withLock {
            switch storage {
            case .memory(let items): items[position]
            case .spool(let spool): spool.item(at: position)
            }
        }
    }

    /// Only the id of item `position`: cheaper from the spool.
    func id(at position: Int) -> String {
        lock.withLock {
            switch storage {
            case .memory(let items): items[position].id
            case .spool(let spool): spool.id(at: position)
            }
        }
    }

    /// Adds `item` at the end. A write that fails is reported by
    /// `finishWriting`.
    func append(_ item: SourceItem) {
        lock.withLock {
            switch storage {
            case .memory(var items):
                storage = .memory([])  // one reference: appending does not copy
                items.append(item)
                storage = .memory(items)
            case .spool(let spool):
                spool.append(item)
            }
        }
    }

    func append(contentsOf items: some Sequence<SourceItem>) {
        for item in items { append(item) }
    }

    /// Writes what is buffered and lets the write buffer go; throws if a
    /// write failed (a full disk), since the collection is then incomplete.
    func finishWriting() throws(RunError) {
        let failure: SystemError? = lock.withLock {
            guard case .spool(let spool) = storage else { return nil }
            spool.flush(keepBuffer: false)
            return spool.failure
        }
        if let failure {
            throw .fatal("cannot write the run's items to a scratch file in \(scratchFolder ?? ""): \(failure.text)")
        }
    }
}
