/// Size and modification time of a file, following links.
func fileStatus(_ path: String) -> (size: Int64, modified: Double)? {
    FileInfo.of(path).map { ($0.size, $0.modified) }
}
