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
    static func mapLargeBlocks() {
        shim_malloc_map_above(mappedBlock)
    }
}
