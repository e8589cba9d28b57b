extension Statistics {
    /// The statistics of the manifest at `path`, read item by item
    /// (`ManifestSource`), as `thumbs stats` needs them: one item is held at
    /// a time, never the manifest, so a manifest of millions of items costs
    /// what one of thousands does.
    public static func read(manifestAt path: String) throws(RunError) -> Statistics {
        let source = try ManifestSource.open(path)
        var accumulator = StatisticsAccumulator()
        let items = source.items()
        while let item = try items.next() { accumulator.add(item) }
        return accumulator.finish(run: source.header.run)
    }
}
