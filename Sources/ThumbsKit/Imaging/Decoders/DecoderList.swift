/// The one ordered list of decoders every source goes through.
///
/// A source's header goes down the list; the first entry that answers with
/// a plan decodes it. When a decode declines (returns nil), the entries
/// after it are planned, and the next plan is reserved and run like any
/// other: libvips, last, takes every source its loaders read.
///
/// To add a format: a file with a type that conforms to `ImageDecoder`
/// (see `VideoDecoder`, the smallest), one line below, and its signature
/// in `ImageSniffer.format(of:)` (with its extensions in
/// `ImageSniffer.imageExtensions`).
struct DecoderList: Sendable {
    let entries: [any ImageDecoder]

    /// thumbs' list, in order.
    static let standard = DecoderList(entries: [
        JPEGPreviewDecoder(),
        JPEGDCDecoder(),
        JPEGProgressiveDecoder(),
        LibjpegDecoder(),
        HeifDecoder(),
        RawPreviewDecoder(),
        LibRawDecoder(),
        VideoDecoder(),
        LibvipsImageDecoder(),
    ])

    /// The plan of the first entry from `first` on that takes the source.
    /// Throws when none does (only past libvips, which takes every source).
    func plan(_ input: DecoderInput, from first: Int = 0) throws(ItemError) -> DecodePlan {
        for index in entries.indices where index >= first {
            if var plan = try entries[index].plan(input) {
                plan.entry = index
                return plan
            }
        }
        throw ItemError.unsupported("not an image format thumbs can read")
    }

    /// `plan(_:from:)` for a source, sniffed by the caller (`format`) or here.
    func plan(
        _ source: ImageSource, format: String?, settings: OutputSettings, limits: DecodeLimits, from first: Int = 0
    ) throws(ItemError) -> DecodePlan {
        try plan(DecoderInput(source: source, format: format, settings: settings, limits: limits), from: first)
    }

    /// `plan(_:from:)` on the standard list.
    static func plan(
        _ source: ImageSource, format: String?, settings: OutputSettings, limits: DecodeLimits, from first: Int = 0
    ) throws(ItemError) -> DecodePlan {
        try standard.plan(source, format: format, settings: settings, limits: limits, from: first)
    }

    /// The one loop every source takes (`ItemProcessor`): plan on the
    /// decode pool, reserve the plan's peak in `memory`, decode on the pool;
    /// a decode that declines gives its reservation back before the next
    /// entry is planned and reserved in turn, so no fallback runs under
    /// another plan's reservation. Returns the decoded image with its
    /// reservation still held: release it once the pixels are finished with.
    func decode(
        _ file: SourceFile, format: String?, settings: OutputSettings, limits: DecodeLimits,
        memory: MemoryBudget, pool: BlockingPool
    ) async throws(ItemError) -> (image: DecodedImage, reserved: Int) {
        let served = try await decode(file, format: format, settings: settings, limits: limits, memory: memory, pool: pool, first: nil)
        return (served.image, served.reserved)
    }

    /// `decode` starting from `first`, a plan the caller already made of
    /// this file (`ItemProcessor` plans before it reads, to know which bytes
    /// the decode needs), so that it is not planned twice; also returns the
    /// plan that served, which is another when `first` declined.
    func decode(
        _ file: SourceFile, format: String?, settings: OutputSettings, limits: DecodeLimits,
        memory: MemoryBudget, pool: BlockingPool, first: DecodePlan?
    ) async throws(ItemError) -> (image: DecodedImage, reserved: Int, served: DecodePlan) {
        var next = 0
        var planned = first
        while true {
            let from = next
            let plan: DecodePlan
            if let given = planned {
                plan = given
                planned = nil
            } else {
                do {
                    plan = try await pool.run { () throws(ItemError) -> DecodePlan in
                        try self.plan(.file(file), format: format, settings: settings, limits: limits, from: from)
                    }
                } catch {
                    throw (error as? ItemError) ?? .decode("\(error)")
                }
            }
            // A decode that needs much (a progressive JPEG's coefficients, a
            // RAW's development, several sizes of a large PNG) waits for room.
            let reserved = await memory.reserve(plan.peakBytes)
            let decoded: DecodedImage?
            do {
                decoded = try await pool.run { () throws(ItemError) -> DecodedImage? in
                    defer {
                        // A progressive JPEG's coefficients (tens of MB) were just
                        // freed; glibc keeps such holes in the thread's arena
                        // unless asked, and each decode thread has its own.
                        if plan.peakBytes >= MemoryBudget.trimAfter { MemoryTrim.releaseFreePages() }
                    }
                    return try plan.decode(.file(file), settings, limits)
                }
            } catch {
                await memory.release(reserved)
                throw (error as? ItemError) ?? .decode("\(error)")
            }
            if let decoded { return (decoded, reserved, plan) }
            await memory.release(reserved)
            next = plan.entry + 1
        }
    }
}
