import CVips
import CVipsShim
import Foundation

/// libvips, initialised once per process and never shut down.
///
/// The operation cache is switched off: it keys on file names and arguments,
/// and in a batch where every file is new it only holds memory.
///
/// libvips' loadable modules (HEIF, JPEG XL, ImageMagick, PDF, OpenSlide)
/// are loaded when an image first needs one, not at start-up
/// (`vips_modules.c`): opening them costs a run 25-45 ms of CPU that a
/// folder of JPEGs never needs. THUMBS_VIPS_MODULES=eager loads them at
/// start-up as libvips does.
public enum VipsRuntime {
    private static let initialised: Bool = {
        if ProcessInfo.processInfo.environment["THUMBS_VIPS_MODULES"] != "eager" {
            _ = shim_modules_defer()
        }
        let ok = shim_init(CommandLine.arguments.first ?? "thumbs") == 0
        if ok {
            shim_cache_off()
            shim_quiet_warnings()
            // liborc's run-time code generation has crashed under concurrent
            // use (seen here once in ~6 list runs, a segfault in a decode
            // thread). Vectorisation is worth ~5% here; a crash loses the run.
            // THUMBS_ORC=1 turns it back on.
            if ProcessInfo.processInfo.environment["THUMBS_ORC"] != "1" {
                shim_vector_set_enabled(0)
            }
        }
        return ok
    }()

    /// Initialises libvips if that has not happened yet. Safe from any thread.
    public static func start() throws(RunError) {
        guard initialised else {
            throw .fatal("libvips could not be initialised: \(VipsErrorBuffer.readAlone() ?? "unknown error")")
        }
    }

    /// The libvips version, e.g. "8.14.1".
    public static var version: String {
        _ = initialised
        return String(cString: vips_version_string())
    }

    /// Threads libvips uses inside one image. With `jobs` images decoded at
    /// once, jobs × threads should be about the number of cores.
    public static func setThreadsPerImage(_ count: Int) {
        vips_concurrency_set(Int32(max(1, count)))
    }

    /// The threads one image may use (`setThreadsPerImage`), for the
    /// decoders that are not libvips's (libheif, LibRaw, FFmpeg).
    static var threadsPerImage: Int {
        _ = initialised
        return max(1, Int(vips_concurrency_get()))
    }

    /// Blocks the loaders libvips marks untrusted (ImageMagick, MATLAB,
    /// FITS…) unless `allowed`.
    public static func setUntrustedLoaders(allowed: Bool) {
        shim_block_untrusted(allowed ? 0 : 1)
    }
}
