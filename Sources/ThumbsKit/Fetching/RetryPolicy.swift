import Foundation

/// When and how long to wait before retrying a request (`--retries`).
///
/// Exponential backoff with jitter: 0.5 s, 1 s, 2 s… (capped at 30 s), each
/// scaled by a random factor in 0.5…1 so that many clients failing together
/// do not come back together. A `Retry-After` from the server (seconds or an
/// HTTP date) is a floor: thumbs never comes back sooner than asked. A server
/// that asks for more than `maxRetryAfter` is not waited for.
struct RetryPolicy: Sendable {
    var retries: Int
    var baseDelay: Double = 0.5
    var maxDelay: Double = 30
    var maxRetryAfter: Double = 120

    /// Seconds to wait before attempt `attempt + 1`, after `attempt` failed.
    func delay(afterAttempt attempt: Int, retryAfter: Double?) -> Double {
        let exponential = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        let jittered = exponential * Double.random(in: 0.5...1)
        return max(jittered, retryAfter ?? 0)
    }

    /// Parses a `Retry-After` value: delta-seconds or an HTTP date.
    static func retryAfter(_ value: String, now: Date = Date()) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite {
            return max(0, seconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and
/// asctime forms that servers still send.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    static func parse(_ text: String) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
