/// A cursor over the bytes of one JSON text, reading it token by token
/// without Foundation (`ManifestItemDecoder`: a re-run reads a million
/// manifest lines, and `JSONDecoder` spent about 30 µs on each).
///
/// Strict where `JSONDecoder` is strict, and stricter where being exact
/// would cost: every method returns nil, and leaves the cursor anywhere,
/// when the text is not what it reads, and also for what `JSONDecoder`
/// may read differently (escaped keys, duplicate keys, an integer written
/// `1.0`). Callers then decode the text
/// with `JSONDecoder`, so nil costs time, never a different answer.
/// Never reads outside `bytes`, never traps, whatever they hold.
struct JSONByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var index: Int
    /// The unescaped bytes of the last string that had escapes (reused).
    private var scratch: [UInt8] = []

    /// Objects and arrays nested deeper than this (in `value`) are left to `JSONDecoder`.
    static let maxDepth = 64

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// Skips JSON white space (space, tab, line feed, carriage return).
    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after white space) if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes the literal `null` (after white space) if it comes next.
    mutating func takeNull() -> Bool { takeWord("null") }

    private mutating func takeWord(_ word: StaticString) -> Bool {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { return false }
        index += count
        // `nullx`, `true1`: not a literal followed by a separator.
        if index < bytes.count, Self.isWordByte(bytes[index]) { return false }
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    mutating func bool() -> Bool? {
        if takeWord("true") { return true }
        if takeWord("false") { return false }
        return nil
    }

    // MARK: Keys

    /// The next object key's raw bytes, with the `:` after it consumed.
    /// Nil for a key with an escape or a control character (left to `JSONDecoder`).
    mutating func key() -> UnsafeRawBufferPointer? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let key = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return take(UInt8(ascii: ":")) ? key : nil
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    // MARK: Strings

    /// A string: escapes undone (`\uXXXX` with surrogate pairs), UTF-8
    /// validated. Nil for a lone surrogate, invalid UTF-8, a raw control
    /// character or an unknown escape, as `JSONDecoder` refuses them.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        return nil
    }

    /// The rest of a string that has escapes, from its first byte `start`.
    private mutating func escapedString(from start: Int) -> String? {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // Escapes add whole scalars (a lead byte first), so raw bytes
                // that are not UTF-8 stay invalid around them: one check.
                return String(validating: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = escapedScalar() else { return nil }
                    UTF8.encode(scalar) { scratch.append($0) }
                default: return nil
                }
            case 0..<0x20: return nil
            default: scratch.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (the `\u` consumed), or of a surrogate pair
    /// `\uD83D\uDE00`; nil for a lone surrogate.
    private mutating func escapedScalar() -> Unicode.Scalar? {
        guard let unit = hex4() else { return nil }
        switch unit {
        case 0xD800...0xDBFF:
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00...0xDFFF: return nil
        default: return Unicode.Scalar(unit)
        }
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            guard let digit = HexDigit.value(byte) else { return nil }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Numbers

    /// An integer written as one (`-?(0|[1-9][0-9]*)`); nil on overflow, and
    /// for `1.0` or `1e3`, which `JSONDecoder` reads as integers its own way.
    mutating func int64() -> Int64? {
        skipSpace()
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        // Accumulated negatively: Int64.min has no positive twin.
        var value: Int64 = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            value = next
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, Self.isWordByte(bytes[index]) { return nil }
        if negative { return value }
        return value == .min ? nil : -value
    }

    mutating func int() -> Int? {
        guard let value = int64() else { return nil }
        return Int(exactly: value)
    }

    /// A number as `JSONDecoder` reads a `Double` (correctly rounded, as
    /// `strtod`): exact small cases computed here (Clinger's fast path:
    /// at most 15 significant digits and a power of ten up to 10^22, one
    /// correctly rounded operation on exact operands), the rest parsed by
    /// `Double(String)`. Nil for what is not a JSON number, and where
    /// `JSONDecoder` throws: beyond the range (1e400, 1e-400).
    mutating func double() -> Double? {
        skipSpace()
        let start = index
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        // The integer part: `0` or digits without a leading zero.
        let integerStart = index
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            if significant > 0 || digit != 0 {
                if significant < 19 { mantissa = mantissa * 10 + UInt64(digit) } else { exponent += 1 }
                significant += 1
            }
            index += 1
        }
        let integerDigits = index - integerStart
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                if significant > 0 || digit != 0 {
                    if significant < 19 {
                        mantissa = mantissa * 10 + UInt64(digit)
                        exponent -= 1
                    }
                    significant += 1
                } else {
                    exponent -= 1
                }
                index += 1
            }
            guard index > fractionStart else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var negativeExponent = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var written = 0
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                if written < 100_000 { written = written * 10 + Int(digit) }
                index += 1
            }
            guard index > exponentStart else { return nil }
            exponent += negativeExponent ? -written : written
        }
        if index < bytes.count, Self.isWordByte(bytes[index]) { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0 }
        if significant <= 15, (-22...22).contains(exponent) {
            let m = Double(mantissa)
            let value = exponent < 0 ? m / Self.powersOfTen[-exponent] : m * Self.powersOfTen[exponent]
            return negative ? -value : value
        }
        let token = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        // `JSONDecoder` refuses what rounds to infinity or to zero (1e-400).
        guard let value = Double(String(decoding: token, as: UTF8.self)), value.isFinite, value != 0 else { return nil }
        return value
    }

    /// 10^0 … 10^22, all exact in a Double.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { value, _ in value * 10 } }

    private static func digit(_ byte: UInt8) -> UInt8? {
        let digit = byte &- UInt8(ascii: "0")
        return digit < 10 ? digit : nil
    }

    // MARK: Any value

    /// Any value as `JSONValue` decodes it with `JSONDecoder` (numbers as
    /// `Double`); nil for duplicate keys and nesting past `maxDepth`.
    mutating func value(depth: Int = 0) -> JSONValue? {
        skipSpace()
        guard index < bytes.count, depth < Self.maxDepth else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "n"): return takeNull() ? .null : nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool().map { .bool($0) }
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "["):
            index += 1
            var values: [JSONValue] = []
            if take(UInt8(ascii: "]")) { return .array(values) }
            repeat {
                guard let value = value(depth: depth + 1) else { return nil }
                values.append(value)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? .array(values) : nil
        case UInt8(ascii: "{"):
            index += 1
            return object(depth: depth).map { .object($0) }
        default: return double().map { .number($0) }
        }
    }

    /// The fields of an object whose `{` was consumed.
    mutating func object(depth: Int = 0) -> [String: JSONValue]? {
        var fields: [String: JSONValue] = [:]
        if take(UInt8(ascii: "}")) { return fields }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), let value = value(depth: depth + 1),
                  fields.updateValue(value, forKey: key) == nil
            else { return nil }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? fields : nil
    }
}
