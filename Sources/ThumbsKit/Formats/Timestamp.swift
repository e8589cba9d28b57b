import Foundation

/// ISO-8601 timestamps in UTC with milliseconds (`2026-11-28T00:07:52.719Z`):
/// the manifest's start and finish, and the time of each JSON log line.
///
/// Written by hand rather than by `ISO8601DateFormatter`: the formatter sets
/// up an ICU calendar on first use, a few milliseconds of every run's
/// start-up for two stamps. The fraction is truncated to milliseconds, as
/// the formatter's `SSS` does.
enum Timestamp {
    static func now() -> String { string(Date()) }

    static func string(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (seconds, millisecond) = floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
            + "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(millisecond, 3) + "Z"
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01
    /// (Howard Hinnant's `civil_from_days`: eras of 400 years, each 146,097
    /// days, with years starting in March so that the leap day comes last).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from March
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0...11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
