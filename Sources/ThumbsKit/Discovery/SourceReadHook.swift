/// What tests do between the steps of a source read: delete the file just
/// before it is opened, truncate it once it is open, touch it once it has
/// been read, or stall a chunk while the run is interrupted.
///
/// A task-local value rather than a global: a test sets it around the run it
/// starts (`SourceReadHook.$current.withValue(hook) { … }`), the run's item
/// tasks inherit it, and `ItemProcessor` hands it to the read on the I/O
/// pool. A real run never sets it: reading it costs one task-local lookup
/// per item (no lock), and every step then costs one nil check. Two tests
/// running at once each see only their own.
struct SourceReadHook: Sendable {
    /// Points of `SourceFile` where `body` runs.
    enum Stage: Sendable {
        /// Before the file is opened.
        case willOpen
        /// After it is open and its size taken, before any byte is read.
        case opened
        /// After each chunk of the whole-file read.
        case chunk
        /// After the last byte, before the size and time are checked again.
        case read
    }

    let body: @Sendable (_ path: String, _ stage: Stage) -> Void
    /// Called with each range `SourceFile` reads through its own reads
    /// (the prefix, header and planning reads, the hash, the JPEG paths'
    /// ranges; not what a library reads through the descriptor itself):
    /// what a test counts to see which bytes of a source were read.
    let reads: (@Sendable (_ path: String, _ range: Range<Int>) -> Void)?

    init(_ body: @escaping @Sendable (_ path: String, _ stage: Stage) -> Void) {
        self.body = body
        reads = nil
    }

    init(reads: @escaping @Sendable (_ path: String, _ range: Range<Int>) -> Void) {
        body = { _, _ in }
        self.reads = reads
    }

    @TaskLocal static var current: SourceReadHook?
}
