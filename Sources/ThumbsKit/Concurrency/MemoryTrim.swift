import CVipsShim
import Foundation

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

    /// Lets glibc make at most one malloc arena per decode thread, plus the
    /// main one (`jobs + 1`), instead of its default of eight per core.
    ///
    /// Each thread that meets a locked arena gets a new one, and a freed
    /// block goes back to the arena it came from, so pixels allocated on
    /// one thread and freed on another leave their pages resident in an
    /// arena no decode uses again. With glibc's default (a new arena for
    /// each new thread, up to 16 on 2 cores) the peak of the same run was
    /// bimodal: 240 baseline photos at `--jobs 2` peaked at 70, 100, 72,
    /// 98, 72 and 70 MiB in six runs; with 3 arenas at 66–85 MiB in 23
    /// runs. The level is set in the first half second, so the spread that
    /// is left is where the first blocks land, not growth. Twelve phone
    /// HEICs at 1024 px: 115–116 MiB before, 108–112 after, at the same
    /// CPU. Video peaks did not move (105–128 MiB either way). A
    /// `MALLOC_ARENA_MAX` in the environment wins.
    static func limitArenas(jobs: Int) {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        shim_malloc_arenas_at_most(Int32(max(1, jobs) + 1))
    }
}
