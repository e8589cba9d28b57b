extension RunOptions {
    /// Every check of the options, in one place: the command line runs it
    /// before anything starts (`thumbs run`'s usage errors), and `ThumbsRun`
    /// runs it again for callers that fill `RunOptions` themselves. A
    /// violation is a usage error (exit 2) whose message names the option.
    public func validate() throws(RunError) {
        guard !sources.isEmpty else { throw .usage("no SOURCE given: name a folder, an image, a photo list file or URL, or -") }
        guard !output.sizes.isEmpty else { throw .usage("--size needs at least one size") }
        guard (1...100).contains(output.quality) else { throw .usage("--quality must be 1..100, not \(output.quality)") }
        guard jobs >= 1 else { throw .usage("--jobs must be at least 1") }
        guard downloadJobs >= 1 else { throw .usage("--download-jobs must be at least 1") }
        if let maxPages, maxPages < 1 { throw .usage("--max-pages must be at least 1") }
        guard (0...LookalikeGrouping.maxDistance).contains(similar) else {
            throw .usage("--similar must be 0..\(LookalikeGrouping.maxDistance) bits, not \(similar)")
        }
        guard maxPixels >= 1 else { throw .usage("--max-pixels must be at least 1") }
        guard maxBytes >= 1 else { throw .usage("--max-bytes must be at least 1") }
        guard retries >= 0 else { throw .usage("--retries must be 0 or more") }
        guard timeout > 0 else { throw .usage("--timeout must be more than 0 seconds") }
        if let rate, rate <= 0 { throw .usage("--rate must be more than 0") }
        if let urlField, urlField.split(separator: ".").isEmpty { throw .usage("--url-field needs a field name, such as urls.small") }
        let labels = output.sizes.map(\.label)
        guard Set(labels).count == labels.count else { throw .usage("--size given twice: \(labels.joined(separator: ", "))") }
    }
}
