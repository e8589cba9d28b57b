import Foundation

/// Everything `thumbs run` was asked to do. The executable fills this from the
/// command line; tests fill it directly.
public struct RunOptions: Sendable {
    /// Directories, image files, list files, list URLs or `-`.
    public var sources: [String]
    public var outputDirectory: String
    public var output: OutputSettings
    /// Images decoded at once.
    public var jobs: Int
    /// Downloads at once.
    public var downloadJobs: Int
    /// At most this many requests per second to one host; nil for no limit.
    public var rate: Double?
    public var retries: Int
    /// Per-request timeout in seconds.
    public var timeout: Double
    public var maxPixels: Int
    public var maxBytes: Int
    public var failOn: FailOn
    public var allowUntrusted: Bool
    public var maxFailures: FailureBudget
    public var force: Bool
    public var dryRun: Bool
    public var shard: Shard?
    public var writeReport: Bool
    public var urlField: String?
    public var maxPages: Int?
    /// `--header`, `--header @FILE` and THUMBS_HEADER: sent with a photo
    /// list's pages, only to the list URL's own origin (`ListReader`).
    public var listHeaders: [RequestHeader] = []
    /// `--whole-files`: every source downloaded and read whole (no partial
    /// downloads of progressive JPEGs, no file read only as far as its
    /// embedded preview), so that every item gets its sha256.
    public var wholeFiles = false
    /// Remove outputs of sources that are gone since the previous run.
    public var prune: Bool
    /// `--max-prune`: a prune that would remove the outputs of more of the
    /// last run's items than this (an unmounted disk, a folder renamed)
    /// removes nothing and the run exits 3.
    public var maxPrune: FailureBudget
    /// Look-alikes: perceptual hashes at most this many bits apart; 0 turns
    /// grouping off.
    public var similar: Int
    public var progress: ProgressMode
    public var verbosity: Verbosity
    public var logFormat: LogFormat

    public init(
        sources: [String],
        outputDirectory: String = Defaults.outputDirectory,
        output: OutputSettings = Defaults.output,
        jobs: Int = Defaults.jobs,
        downloadJobs: Int = Defaults.downloadJobs,
        rate: Double? = nil,
        retries: Int = Defaults.retries,
        timeout: Double = Defaults.timeout,
        maxPixels: Int = Defaults.maxPixels,
        maxBytes: Int = Defaults.maxBytes,
        failOn: FailOn = Defaults.failOn,
        allowUntrusted: Bool = false,
        maxFailures: FailureBudget = Defaults.maxFailures,
        force: Bool = false,
        dryRun: Bool = false,
        shard: Shard? = nil,
        writeReport: Bool = true,
        urlField: String? = nil,
        maxPages: Int? = nil,
        prune: Bool = false,
        maxPrune: FailureBudget = Defaults.maxPrune,
        similar: Int = Defaults.similar,
        progress: ProgressMode = .auto,
        verbosity: Verbosity = .normal,
        logFormat: LogFormat = .text
    ) {
        self.sources = sources
        self.outputDirectory = outputDirectory
        self.output = output
        self.jobs = jobs
        self.downloadJobs = downloadJobs
        self.rate = rate
        self.retries = retries
        self.timeout = timeout
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
        self.failOn = failOn
        self.allowUntrusted = allowUntrusted
        self.maxFailures = maxFailures
        self.force = force
        self.dryRun = dryRun
        self.shard = shard
        self.writeReport = writeReport
        self.urlField = urlField
        self.maxPages = maxPages
        self.prune = prune
        self.maxPrune = maxPrune
        self.similar = similar
        self.progress = progress
        self.verbosity = verbosity
        self.logFormat = logFormat
    }
}

/// `--max-failures N` or `--max-failures P%`; also `--max-prune`, whose
/// limit is read and compared the same way (gone items out of the last
/// run's).
public enum FailureBudget: Sendable, Hashable, CustomStringConvertible {
    case count(Int)
    case percent(Double)

    public init?(parsing text: String) {
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value >= 0, value <= 100 else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(text), value >= 0 else { return nil }
            self = .count(value)
        }
    }

    /// Whether `failed` failures out of `total` items exceed the budget.
    public func isExceeded(failed: Int, total: Int) -> Bool {
        switch self {
        case .count(let limit): failed > limit
        case .percent(let limit): total > 0 && Double(failed) * 100 > limit * Double(total)
        }
    }

    public var description: String {
        switch self {
        case .count(let n): "\(n)"
        case .percent(let p): p == p.rounded() && abs(p) < 1e15 ? "\(Int(p))%" : "\(p)%"
        }
    }
}

public enum ProgressMode: String, Sendable, CaseIterable {
    case auto, always, never
}

public enum Verbosity: Int, Sendable, Comparable {
    case quiet, normal, verbose
    public static func < (a: Verbosity, b: Verbosity) -> Bool { a.rawValue < b.rawValue }
}

public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}
