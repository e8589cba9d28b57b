extension SourceItem {
    /// Where, relative to OUT, this item's thumbnail of one size goes:
    /// `<size>/<name>.<ext>` (PRODUCT.md, "Files written"). The one place
    /// that spells the rule: rendering, duplicates, re-run checks and dry
    /// runs all ask here.
    func outputPath(size label: String, fileExtension: String) -> String {
        "\(label)/\(outputName).\(fileExtension)"
    }

    func outputPath(size: ThumbSize, format: OutputFormat) -> String {
        outputPath(size: size.label, fileExtension: format.fileExtension)
    }
}
