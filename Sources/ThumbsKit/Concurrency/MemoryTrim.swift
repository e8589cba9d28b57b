import CVipsShim

/// Hands free heap pages back to the system now and then during long runs.
///
/// Each image makes libvips allocate and free many short-lived buffers
/// between the small, long-lived records the run keeps for its manifest; the
/// holes left behind stay resident until glibc is asked to release them.
enum MemoryTrim {
    static func releaseFreePages() {
        shim_malloc_trim()
    }

    /// Blocks this large or larger are mapped on their own.
    static let mappedBlock = 4 << 20

    /// Makes every heap block of `mappedBlock` or more a mapping of its own,
    /// unmapped as soon as it is freed.
    ///
    /// A decode's large blocks (a progressive JPEG's coefficients, 6 MB a
    /// component for a 12 MP photo; its pixels, 9 MB at 1/2) are freed
    /// within milliseconds. glibc maps blocks above 128 KB at first, but
    /// each such free raises its threshold to the freed size (up to 32 MB),
    /// after which the next ones come from the decode thread's arena and
    /// their pages stay resident as holes between smaller blocks: at
    /// `--jobs 2`, `--size 1024` on 12 MP progressive photos, 28 MiB of the
    /// peak RSS. A fixed threshold of 4 MB keeps the smaller, frequent
    /// blocks (libvips's tiles and strips, source buffers) in the arenas,
    /// where reuse is cheap, and cost no measurable CPU in `make bench`.
    ///
    /// It also keeps up to `mappedBlock` free at the top of each heap
    /// instead of handing it back at once. A fixed mmap threshold turns off
    /// glibc's dynamic thresholds, so the trim threshold would stay at
    /// 128 KB: each item's buffers below 4 MB (a 1/4 decode's pixels, the
    /// thumbnail, the encoder's) were returned when freed and faulted in
    /// fresh by the next item, about 450 page faults an item on 2000×1500
    /// photos (30 of them: 20,400 minor faults, 7,000 with this; peak RSS
    /// 79 -> 86 MB). `releaseFreePages` still returns everything after a
    /// large decode and every 2000 items.
    static func mapLargeBlocks() {
        shim_malloc_map_above(mappedBlock)
        shim_malloc_keep_top(mappedBlock)
    }
}
