import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `ManifestItemDecoder` must give what `JSONDecoder` gives for every line
/// `ManifestWriter` (and the journal's `JSONEncoder`) can write, and nil —
/// never another item, never a crash — for anything else.
final class ManifestItemDecoderTests: TemporaryFolderTestCase {
    // MARK: What the writers write

    func testEveryWrittenItemDecodesAsJSONDecoderDecodesIt() throws {
        var random = RandomItems(seed: 23)
        let decoder = JSONDecoder()
        let journalEncoder = JSONEncoder()
        journalEncoder.outputFormatting = [.withoutEscapingSlashes]
        let slashEncoder = JSONEncoder()
        var fields = Set<String>()
        for n in 0..<2000 {
            let item = random.item()
            let expected = RandomItems.asWritten(item)
            let line = Self.line(item)
            let fast = try XCTUnwrap(ManifestItemDecoder.decode(line), "item \(n): \(String(decoding: line, as: UTF8.self))")
            XCTAssertEqual(fast, try decoder.decode(ManifestItem.self, from: Data(line)), "item \(n)")
            XCTAssertEqual(fast, expected, "item \(n)")
            // `==` on strings ignores NFC against NFD: the bytes must match too.
            XCTAssertTrue(Self.exactBytes(fast) == Self.exactBytes(item), "item \(n): \(String(decoding: line, as: UTF8.self))")

            // The journal's layout: compact, keys in hash order, JSONEncoder's escapes and numbers, `"partial":false` kept.
            let finite = RandomItems.finite(item)
            for encoder in [journalEncoder, slashEncoder] {
                let record = try encoder.encode(finite)
                let fromJournal = try XCTUnwrap(ManifestItemDecoder.decode([UInt8](record)), "item \(n): \(String(decoding: record, as: UTF8.self))")
                XCTAssertEqual(fromJournal, try decoder.decode(ManifestItem.self, from: record), "item \(n)")
                XCTAssertEqual(fromJournal, finite, "item \(n)")
                XCTAssertTrue(Self.exactBytes(fromJournal) == Self.exactBytes(finite), "item \(n): same bytes")
            }
            let text = String(decoding: line, as: UTF8.self)
            for key in RandomItems.keys where text.contains("\"\(key)\": ") { fields.insert(key) }
        }
        XCTAssertEqual(fields, Set(RandomItems.keys), "every field was written")
    }

    func testNumbersAreTheDoublesJSONDecoderReads() throws {
        let tokens = ["0", "-0", "1", "-1", "1.5", "0.1", "1e-7", "1E+2", "1e2", "1795559246.344", "1795329933.902974",
                      "0.30000000000000004", "9007199254740993", "123456789012345678901234567890", "1e22", "1e23",
                      "5e-324", "2.4e-324", "2.5e-324", "1e-310", "2.2250738585072011e-308", "1.7976931348623157e308",
                      "1.7976931348623159e308", "1e400", "-1e400", "1e-400", "0e99999", "0.000001234567890123456789",
                      "01", "1.", ".5", "-", "1e", "1e+", "+1", "--1", "1.5.2", "NaN", "Infinity", "0x10", "1_000", "١"]
        var random = SplitMix64(state: 7)
        var fuzz: [String] = []
        for _ in 0..<20000 {
            var token = Bool.random(using: &random) ? "-" : ""
            let digits = Int.random(in: 1...22, using: &random)
            token += String((0..<digits).map { _ in "0123456789".randomElement(using: &random)! })
            if Bool.random(using: &random) {
                token += "." + String((0..<Int.random(in: 1...20, using: &random)).map { _ in "0123456789".randomElement(using: &random)! })
            }
            if Int.random(in: 0..<3, using: &random) == 0 { token += "e" + ["", "-", "+"].randomElement(using: &random)! + String(Int.random(in: 0...340, using: &random)) }
            fuzz.append(token)
        }
        for _ in 0..<20000 { fuzz.append("\(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF))") }
        var fast = 0
        for token in tokens + fuzz {
            let bytes = Array(token.utf8)
            let ours = bytes.withUnsafeBytes { raw -> Double? in
                var reader = JSONByteReader(raw)
                guard let value = reader.double(), reader.isAtEnd else { return nil }
                return value
            }
            let theirs = try? JSONDecoder().decode([Double].self, from: Data("[\(token)]".utf8)).first
            XCTAssertEqual(ours?.bitPattern, theirs?.bitPattern, token)
            if ours != nil { fast += 1 }
        }
        XCTAssertGreaterThan(fast, 37000, "most tokens are in range")
    }

    func testIntegersRefuseOverflowAndLeaveOtherFormsToJSONDecoder() {
        func int(_ token: String) -> Int64? {
            Array(token.utf8).withUnsafeBytes { raw in
                var reader = JSONByteReader(raw)
                guard let value = reader.int64(), reader.isAtEnd else { return nil }
                return value
            }
        }
        XCTAssertEqual(int("0"), 0)
        XCTAssertEqual(int("-0"), 0)
        XCTAssertEqual(int("9223372036854775807"), .max)
        XCTAssertEqual(int("-9223372036854775808"), .min)
        for refused in ["9223372036854775808", "-9223372036854775809", "99999999999999999999", "01", "-", "1.0", "1e2", "+1", ""] {
            XCTAssertNil(int(refused), refused)
        }
    }

    func testStringsAreUnescapedAndInvalidOnesRefused() throws {
        func string(_ bytes: [UInt8]) -> String? {
            bytes.withUnsafeBytes { raw in
                var reader = JSONByteReader(raw)
                guard let value = reader.string(), reader.isAtEnd else { return nil }
                return value
            }
        }
        func json(_ text: String) -> [UInt8] { Array(text.utf8) }
        XCTAssertEqual(string(json(#""a\"b\\c\/d\b\f\n\r\t""#)), "a\"b\\c/d\u{8}\u{C}\n\r\t")
        XCTAssertEqual(string(json(#""\u00e9\u00C9\u0000x""#)), "éÉ\u{0}x")
        XCTAssertEqual(string(json(#""\ud83d\ude00 写真""#))?.unicodeScalars.map(\.value), [0x1F600, 0x20, 0x5199, 0x771F])
        XCTAssertEqual(string(json("\"e\u{301}\""))?.utf8.count, 3, "NFD kept as written")
        for refused: [UInt8] in [json(#""\ud800""#), json(#""\ud800x""#), json(#""\udc00\ud800""#), json(#""\ud83d\u0041""#),
                                 json(#""\x""#), json(#""\U0041""#), json(#""\u12""#), json(#""\u12g4""#), json("\"a"), json("\"a\\"),
                                 [0x22, 0x01, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
                                 [0x22, 0xE2, 0x82, 0x22], [0x22, 0xE2, 0x82] + json(#"\u00e9""#), [0x22, 0x5C, 0x6E, 0xFF, 0x22]] {
            XCTAssertNil(string(refused), "\(refused)")
        }
    }

    // MARK: Lines it does not expect

    func testTruncatedLinesAreRefused() {
        var random = RandomItems(seed: 5)
        for _ in 0..<20 {
            let line = Self.line(random.item())
            for end in 0..<line.count {
                let cut = Array(line[..<end])
                XCTAssertNil(ManifestItemDecoder.decode(cut), String(decoding: cut, as: UTF8.self))
            }
        }
    }

    func testDamagedLinesGiveNilOrJSONDecodersItem() {
        var random = RandomItems(seed: 11)
        let interesting: [UInt8] = Array("\"\\,:{}[] \t0-.eEn1u".utf8) + [0x00, 0x0A, 0x7F, 0x80, 0xC3, 0xFF]
        var readAnyway = 0
        for _ in 0..<40 {
            let line = Self.line(random.item())
            for _ in 0..<150 {
                var damaged = line
                let at = Int.random(in: 0..<line.count, using: &random.generator)
                switch Int.random(in: 0..<3, using: &random.generator) {
                case 0: damaged[at] = interesting.randomElement(using: &random.generator)!
                case 1: damaged.remove(at: at)
                default: damaged.insert(interesting.randomElement(using: &random.generator)!, at: at)
                }
                if Self.assertAgrees(damaged) { readAnyway += 1 }
            }
        }
        XCTAssertGreaterThan(readAnyway, 100, "some damage leaves valid JSON (a changed string, white space)")
    }

    func testOtherLayoutsAreLeftToJSONDecoder() throws {
        let item = RandomItems.richItem
        let line = String(decoding: Self.line(item), as: UTF8.self)
        let decoded = try JSONDecoder().decode(ManifestItem.self, from: Data(line.utf8))
        XCTAssertEqual(decoded, item)
        let source = #""source": "# + String(line.split(separator: #", "source": "#)[1].split(separator: #", "status""#)[0]) + ", "
        let variants: [(String, String)] = [
            ("unknown key first", #"{"extra": 1, "# + line.dropFirst()),
            ("unknown key last", String(line.dropLast()) + #", "extra": {"a": [1]}}"#),
            ("unknown key inside", line.replacingOccurrences(of: #"{"thumbhash": "#, with: #"{"x": null, "thumbhash": "#)),
            ("key repeated", line.replacingOccurrences(of: #", "ms": "#, with: #", "ms": 5, "ms": "#)),
            ("escaped key", line.replacingOccurrences(of: #"{"id": "#, with: #"{"\u0069d": "#)),
            ("integer as 4.0", line.replacingOccurrences(of: #", "width": 4, "#, with: #", "width": 4.0, "#)),
            ("byte order mark", "\u{FEFF}" + line),
        ]
        for (name, text) in variants {
            XCTAssertNotEqual(text, line, name)
            XCTAssertNil(ManifestItemDecoder.decode(Array(text.utf8)), name)
        }
        // Keys in another order (the journal's JSONEncoder writes them in
        // hash order), white space anywhere JSON allows it: read here.
        let reordered = "{" + source + line.replacingOccurrences(of: source, with: "").dropFirst()
        XCTAssertNotEqual(reordered, line)
        XCTAssertEqual(ManifestItemDecoder.decode(Array(reordered.utf8)), item)
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted]
        let spaced = try pretty.encode(item)
        XCTAssertEqual(ManifestItemDecoder.decode([UInt8](spaced)), item)
        let tabbed = "\t\r\n " + line.replacingOccurrences(of: ": ", with: "\t:\r\n").replacingOccurrences(of: ", \"", with: " ,\"") + "\n"
        XCTAssertEqual(ManifestItemDecoder.decode(Array(tabbed.utf8)), item)
    }

    func testWrongTypesAndValuesAreRefused() throws {
        let base = #"{"id": "a", "source": "s", "status": "ok", "width": 4, "outputs": [], "download": {"url": "u", "status": 200, "bytes": 1, "attempts": 1, "ms": 2}, "ms": 1}"#
        XCTAssertEqual(ManifestItemDecoder.decode(Array(base.utf8))?.download?.status, 200)
        let broken = [
            (#""width": 4"#, #""width": "4""#), (#""width": 4"#, #""width": 4.5"#), (#""width": 4"#, #""width": true"#),
            (#""width": 4"#, #""width": 99999999999999999999"#), (#""status": "ok""#, #""status": "weird""#),
            (#""status": "ok""#, #""status": null"#), (#""outputs": []"#, #""outputs": null"#), (#""outputs": []"#, #""outputs": [1]"#),
            (#""outputs": []"#, #""outputs": [{}]"#), (#""ms": 1"#, #""ms": "1""#), (#""ms": 1"#, #""ms": nul"#),
            (#""ms": 1"#, #""ms": nullx"#), (#""id": "a""#, #""id": 1"#), (#""url": "u""#, #""url": null"#),
            (#""status": 200"#, #""status": "200""#), (#", "ms": 1}"#, #"}"#), (#""ms": 1}"#, #""ms": 1,}"#),
            (#""ms": 1}"#, #""ms": 1}}"#), (#""ms": 1}"#, #""ms": 1} x"#), (#""width": 4, "#, #""width": 4 "#),
            (#""width": 4"#, #""width": 4, "meta": []"#), (#""width": 4"#, #""width": 4, "meta": {"a": 1, "a": 2}"#),
        ]
        for (from, to) in broken {
            let text = base.replacingOccurrences(of: from, with: to)
            XCTAssertNotEqual(text, base)
            XCTAssertNil(ManifestItemDecoder.decode(Array(text.utf8)), text)
        }
        // `null` for every optional field: read as absent, as JSONDecoder reads it.
        let nulls = #"{"id": "a", "source": "s", "status": "ok", "sha256": null, "bytes": null, "format": null, "width": null, "#
            + #""height": null, "orientation": null, "outputs": [], "duplicateOf": null, "placeholder": null, "color": null, "#
            + #""phash": null, "similarTo": null, "video": {"durationSeconds": 1, "codec": "c", "fps": 2, "frameAtSeconds": 3, "hdr": null}, "#
            + #""download": {"url": "u", "status": null, "bytes": 1, "size": null, "partial": null, "attempts": 1, "ms": 2, "etag": null, "#
            + #""lastModified": null}, "meta": null, "error": null, "ms": 1, "modified": null}"#
        let fromNulls = try XCTUnwrap(ManifestItemDecoder.decode(Array(nulls.utf8)))
        XCTAssertEqual(fromNulls, try JSONDecoder().decode(ManifestItem.self, from: Data(nulls.utf8)))
        var expected = ManifestItem(id: "a", source: "s", status: .ok, download: DownloadRecord(url: "u", status: nil, bytes: 1, attempts: 1, ms: 2), ms: 1)
        expected.video = VideoFacts(durationSeconds: 1, codec: "c", fps: 2, frameAtSeconds: 3)
        XCTAssertEqual(fromNulls, expected)
        let deep = base.replacingOccurrences(of: #""width": 4"#, with: #""meta": {"a": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}")
        XCTAssertNil(ManifestItemDecoder.decode(Array(deep.utf8)), "nesting past maxDepth: left to JSONDecoder")
    }

    // MARK: The previous run

    func testPreviousRunReadsFastLinesAndFallsBackForOthers() throws {
        var random = RandomItems(seed: 9)
        var items = (0..<150).map { n in
            var item = RandomItems.asWritten(random.item())
            item.id = "item-\(n)-" + item.id
            return item
        }
        items[70].id = "edited"
        let manifest = Manifest(tool: .init(libvips: "8.14.1"), startedAt: "s", finishedAt: "f", settings: OutputSettings(), items: items)
        var text = String(decoding: ManifestWriter.encode(manifest), as: UTF8.self)
        // A line edited by hand: an unknown key this decoder refuses, JSONDecoder reads.
        text = text.replacingOccurrences(of: #"{"id": "edited", "source": "#, with: #"{"id": "edited", "note": "by hand", "source": "#)
        let path = root + "/manifest.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let previous = PreviousRun.load(manifestPath: path, journalPath: root + "/journal.ndjson", settings: OutputSettings())
        XCTAssertEqual(previous.count, items.count)
        for item in items.reversed() + items {
            XCTAssertEqual(previous.record(for: item.id), item, item.id)
        }
    }

    // MARK: Helpers

    static func line(_ item: ManifestItem) -> [UInt8] {
        var out = JSONText()
        ManifestWriter.write(item, into: &out)
        return out.bytes
    }

    /// The item's text, with `meta` keys sorted by their bytes: `==` on
    /// strings ignores NFC against NFD, and `ManifestWriter` sorts `meta`
    /// keys with `<`, for which "e\u{301}" and "é\u{7F}" are neither before
    /// the other (so their order follows the dictionary's).
    static func exactBytes(_ item: ManifestItem) -> [UInt8] {
        var plain = item
        plain.meta = nil
        return line(plain) + [0] + (item.meta.map { exactBytes(.object($0)) } ?? [])
    }

    static func exactBytes(_ value: JSONValue) -> [UInt8] {
        switch value {
        case .object(let fields):
            var bytes: [UInt8] = [UInt8(ascii: "{")]
            for key in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                bytes += exactBytes(.string(key))
                bytes += exactBytes(fields[key] ?? .null)
            }
            return bytes + [UInt8(ascii: "}")]
        case .array(let values):
            var bytes: [UInt8] = [UInt8(ascii: "[")]
            for value in values { bytes += exactBytes(value) }
            return bytes + [UInt8(ascii: "]")]
        default:
            var text = JSONText()
            text.value(value)
            return text.bytes
        }
    }

    /// Whether `line` decodes; fails the test if this decoder gives an item
    /// `JSONDecoder` does not give.
    @discardableResult
    static func assertAgrees(_ line: [UInt8], file: StaticString = #filePath, lineNumber: UInt = #line) -> Bool {
        guard let fast = ManifestItemDecoder.decode(line) else { return false }
        let text = String(decoding: line, as: UTF8.self)
        guard let slow = try? JSONDecoder().decode(ManifestItem.self, from: Data(line)) else {
            XCTFail("read here, refused by JSONDecoder: \(text)", file: file, line: lineNumber)
            return true
        }
        XCTAssertEqual(fast, slow, text, file: file, line: lineNumber)
        XCTAssertTrue(exactBytes(fast) == exactBytes(slow), text, file: file, line: lineNumber)
        return true
    }
}

/// Random items with every field and awkward strings and numbers.
struct RandomItems {
    var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(state: seed) }

    static let keys = ["id", "source", "status", "sha256", "bytes", "format", "width", "height", "orientation", "outputs",
                       "duplicateOf", "placeholder", "color", "phash", "similarTo", "video", "hdr", "download", "size",
                       "partial", "etag", "lastModified", "meta", "warnings", "error", "ms", "modified"]

    static let fragments = ["a", "Z", "0", " ", "\"", "\\", "/", "\\u", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{8}", "\u{C}",
                            "\u{1F}", "\u{7F}", "\u{80}", "é", "e\u{301}", "Å", "A\u{30A}", "写真", "😀", "👨‍👩‍👧", "\u{FFFD}",
                            "\u{2028}", "\u{10FFFF}", "\u{FEFF}", "<script>", "%20", "ünï", "-1.5e3", "null", "{\"id\": \"x\"}"]

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &generator) < p }

    mutating func string() -> String {
        String((0..<Int.random(in: 0...8, using: &generator)).map { _ in Self.fragments.randomElement(using: &generator)! }.joined())
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<9, using: &generator) {
        case 0: Double(Int.random(in: 0...100_000, using: &generator))
        case 1: Double(Int.random(in: 0...10_000_000, using: &generator)) / 1000
        case 2: 1_795_559_246.344 + Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 1_000_000
        case 3: Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (chance(0.5) ? 1 : -1)
        case 4: [0.1, 1e-7, 1e22, 1e23, 9007199254740994, .leastNonzeroMagnitude, -0.0, 1e15, 1e16, .greatestFiniteMagnitude].randomElement(using: &generator)!
        case 5: [.infinity, -.infinity, .nan].randomElement(using: &generator)!
        case 6: Double.random(in: 0..<1, using: &generator)
        case 7: Double(Int64.random(in: .min ... .max, using: &generator))
        default: Double(Int.random(in: 0...3000, using: &generator)) / 100
        }
    }

    mutating func int() -> Int {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: Int.random(in: 0...10_000, using: &generator)
        case 1: Int.random(in: .min ... .max, using: &generator)
        case 2: [Int.min, Int.max, 0, -1].randomElement(using: &generator)!
        default: Int.random(in: -100...100, using: &generator)
        }
    }

    mutating func value(depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth < 3 ? 6 : 4), using: &generator) {
        case 0: .null
        case 1: .bool(chance(0.5))
        case 2: .number(double())
        case 3: .string(string())
        case 4: .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in value(depth: depth + 1) })
        default: .object(object(depth: depth + 1))
        }
    }

    mutating func object(depth: Int = 0) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &generator) { fields[string()] = value(depth: depth) }
        return fields
    }

    mutating func item() -> ManifestItem {
        var item = ManifestItem(id: string(), source: string(), status: ItemStatus.allCases.randomElement(using: &generator)!, ms: double())
        if chance(0.5) { item.sha256 = string() }
        if chance(0.5) { item.bytes = Int64(int()) }
        if chance(0.5) { item.format = string() }
        if chance(0.5) { item.width = int() }
        if chance(0.5) { item.height = int() }
        if chance(0.3) { item.orientation = int() }
        item.outputs = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
            ManifestOutput(size: string(), path: string(), width: int(), height: int(), bytes: Int64(int()), format: string(), sha256: string())
        }
        if chance(0.3) { item.duplicateOf = string() }
        if chance(0.4) { item.placeholder = Placeholder(thumbhash: string(), blurhash: string()) }
        if chance(0.4) { item.color = string() }
        if chance(0.4) { item.phash = string() }
        if chance(0.3) { item.similarTo = SimilarReference(id: string(), distance: int()) }
        if chance(0.3) {
            item.video = VideoFacts(durationSeconds: double(), codec: string(), fps: double(), frameAtSeconds: double(), hdr: chance(0.5) ? string() : nil)
        }
        if chance(0.4) {
            var download = DownloadRecord(url: string(), status: chance(0.7) ? int() : nil, bytes: Int64(int()), attempts: int(), ms: double(),
                                          etag: chance(0.5) ? string() : nil, lastModified: chance(0.5) ? string() : nil)
            if chance(0.5) { download.size = Int64(int()) }
            if chance(0.6) { download.partial = chance(0.5) }
            item.download = download
        }
        if chance(0.3) { item.meta = object() }
        if chance(0.2) { item.warnings = (0..<Int.random(in: 1...3, using: &generator)).map { _ in string() } }
        if chance(0.3) { item.error = ErrorRecord(code: string(), message: string()) }
        if chance(0.5) { item.modified = double() }
        return item
    }

    /// An item with every field set, its strings awkward but free of `: `.
    static let richItem: ManifestItem = {
        var item = ManifestItem(id: "we\"ird\\ \n\t\u{1}\u{7F} / ünï 写真 e\u{301} 😀", source: "/in/x.jpg", status: .duplicate,
                                sha256: "ab", bytes: 1, format: "jpeg", width: 4, height: 3, orientation: 6,
                                outputs: [ManifestOutput(size: "256", path: "256/x.jpg", width: 256, height: 192, bytes: 9000, format: "jpeg", sha256: "cd")],
                                duplicateOf: "d", meta: ["a": .array([.number(1), .string("x"), .null, .bool(false), .object(["b": .number(0.5)])])],
                                error: ErrorRecord(code: "c", message: "m"), ms: 12.5, modified: 1_795_559_246.344)
        item.placeholder = Placeholder(thumbhash: "t", blurhash: "b")
        item.color = "#000000"
        item.phash = "0011"
        item.similarTo = SimilarReference(id: "s", distance: 3)
        item.video = VideoFacts(durationSeconds: 1.5, codec: "h264", fps: 29.97, frameAtSeconds: 0.5, hdr: "pq")
        item.download = DownloadRecord(url: "http://h/x", status: nil, bytes: 1, attempts: 1, ms: 2.5, etag: "\"e\"", lastModified: "l")
        item.download?.size = 10
        item.download?.partial = true
        item.warnings = ["w\"a\\rn 写真", ""]
        return item
    }()

    /// The item with its non-finite numbers as 0, which `JSONText.number` writes for them.
    static func finite(_ item: ManifestItem) -> ManifestItem {
        func f(_ x: Double) -> Double { x.isFinite ? x : 0 }
        func v(_ value: JSONValue) -> JSONValue {
            switch value {
            case .number(let x): .number(f(x))
            case .array(let values): .array(values.map(v))
            case .object(let fields): .object(fields.mapValues(v))
            default: value
            }
        }
        var item = item
        item.ms = f(item.ms)
        item.modified = item.modified.map(f)
        if var video = item.video {
            video.durationSeconds = f(video.durationSeconds)
            video.fps = f(video.fps)
            video.frameAtSeconds = f(video.frameAtSeconds)
            item.video = video
        }
        if let ms = item.download?.ms { item.download?.ms = f(ms) }
        item.meta = item.meta?.mapValues(v)
        return item
    }

    /// The item as `ManifestWriter` writes it: finite, and `partial` only when true.
    static func asWritten(_ item: ManifestItem) -> ManifestItem {
        var item = finite(item)
        if item.download?.partial == false { item.download?.partial = nil }
        return item
    }
}
