import Foundation

extension RunOptions {
    /// The one home of `thumbs run`'s defaults (PRODUCT.md's brackets):
    /// `RunOptions.init`, the command line's declarations and their `--help`
    /// all read them from here. The output defaults (size, fit, crop,
    /// format, quality) are `OutputSettings()`'s.
    public enum Defaults {
        public static let outputDirectory = "thumbs-out"
        public static let output = OutputSettings()
        /// One image decoded per core.
        public static var jobs: Int { ProcessInfo.processInfo.activeProcessorCount }
        public static let downloadJobs = 8
        public static let retries = 3
        /// Seconds a whole request may take.
        public static let timeout: Double = 30
        /// 16383 × 16383.
        public static let maxPixels = 268_402_689
        /// 256 MiB.
        public static let maxBytes = 256 << 20
        public static let failOn: FailOn = .error
        public static let maxFailures: FailureBudget = .count(0)
        /// Half of the last run's items: more than that gone at once is
        /// rather an unmounted disk than a tidy-up.
        public static let maxPrune: FailureBudget = .percent(50)
        public static let similar = LookalikeGrouping.defaultDistance
    }
}
