import Foundation

/// ISO-8601 timestamps with fractional seconds: the manifest's start and
/// finish, and the time of each JSON log line.
enum Timestamp {
    static func now() -> String { string(Date()) }

    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
