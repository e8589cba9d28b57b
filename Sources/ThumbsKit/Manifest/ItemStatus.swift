public enum ItemStatus: String, Sendable, Codable, CaseIterable {
    case ok, unchanged, duplicate, failed
}
