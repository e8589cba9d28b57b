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
}
