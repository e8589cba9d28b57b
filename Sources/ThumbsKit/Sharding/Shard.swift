/// `--shard I/N`: this process handles shard `index` (0-based) of `count`.
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    public init?(parsing text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: i, count: n)
    }

    public var description: String { "\(index)/\(count)" }
}
