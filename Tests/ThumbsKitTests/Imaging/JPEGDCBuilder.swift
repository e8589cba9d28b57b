import Foundation

/// Writes small JPEGs by hand, with every AC coefficient zero and each
/// block's DC coefficient chosen by the test, in any scan layout: baseline,
/// several sequential scans, or progressive (DC first passes with a point
/// transform, DC refinements, AC scans that only say "end of band").
///
/// Tests use it to reach what encoders never write (DC values beyond the
/// IDCT's range, too many blocks per MCU, tables redefined between scans,
/// broken scan headers) and to compare the DC decode with libjpeg's own
/// through libvips.
struct JPEGDCBuilder {
    struct Component {
        var id: UInt8
        var h = 1, v = 1
        /// The DC quantiser (the AC entries are 1).
        var quant: UInt16 = 8
    }

    /// A Huffman table as DHT writes it.
    struct Table: Equatable {
        var counts: [UInt8] // 16 entries: codes of each length
        var symbols: [UInt8]

        /// Annex K's luminance DC table (categories 0...11).
        static let dcLuminance = Table(counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], symbols: Array(0...11))
        /// Every DC category, 0...15 (differences up to 32767).
        static let dcWide = Table(counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0], symbols: Array(0...15))
        /// Annex K's chrominance DC table (other code lengths).
        static let dcChrominance = Table(counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], symbols: Array(0...11))
        /// One symbol, 0x00 (end of block / EOB0), coded as one 0 bit.
        static let endOfBlock = Table(counts: [1] + Array(repeating: 0, count: 15), symbols: [0])

        /// Code and length of each symbol (canonical Huffman).
        var codes: [UInt8: (code: UInt32, length: Int)] {
            var result: [UInt8: (UInt32, Int)] = [:]
            var code: UInt32 = 0, k = 0
            for length in 1...16 {
                for _ in 0..<Int(counts[length - 1]) {
                    result[symbols[k]] = (code, length)
                    code += 1
                    k += 1
                }
                code <<= 1
            }
            return result
        }
    }

    enum Scan {
        /// Ss=0, Se=63: DC, then "end of block".
        case sequential([Int])
        /// DC first pass with point transform `al`.
        case dcFirst([Int], al: Int)
        /// DC refinement: bit `al` of each coefficient.
        case dcRefine([Int], al: Int)
        /// AC band Ss...Se of one component: every block "EOB".
        case ac(Int, ss: Int, se: Int, ah: Int, al: Int)
    }

    var width: Int
    var height: Int
    var components: [Component]
    var progressive = false
    var restartInterval = 0
    /// The DC table each scan uses (table 0, redefined by a DHT before a scan
    /// when it changes).
    var dcTables: [Table] = [.dcWide]
    var scans: [Scan]
    /// The DC coefficient of block (x, y) of component c.
    var dc: (_ c: Int, _ x: Int, _ y: Int) -> Int

    var hmax: Int { components.map(\.h).max() ?? 1 }
    var vmax: Int { components.map(\.v).max() ?? 1 }

    /// Blocks of component c holding real pixels (a one-component scan's extent).
    func blocks(_ c: Int) -> (x: Int, y: Int) {
        let comp = components[c]
        let w = (width * comp.h + hmax - 1) / hmax, h = (height * comp.v + vmax - 1) / vmax
        return ((w + 7) / 8, (h + 7) / 8)
    }

    /// The file: SOI, DQT, SOF, DHT, DRI, then the scans, then EOI.
    func bytes() -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += header()
        var currentDC: Table? = nil
        for (index, scan) in scans.enumerated() {
            let table = dcTables[min(index, dcTables.count - 1)]
            if table != currentDC {
                out += Self.dht(0x00, table)
                currentDC = table
            }
            out += sos(scan)
            out += entropy(scan, dcTable: table)
        }
        out += [0xFF, 0xD9]
        return out
    }

    /// DQT, SOF, the AC table and DRI: everything before the first DHT of a DC table.
    func header() -> [UInt8] {
        var out: [UInt8] = []
        for (i, comp) in components.enumerated() {
            var body: [UInt8] = [UInt8(comp.quant > 255 ? 0x10 | i : i)]
            for k in 0..<64 {
                let value = k == 0 ? comp.quant : 1
                body += comp.quant > 255 ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value)]
            }
            out += Self.segment(0xDB, body)
        }
        var sof: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components.count)]
        for (i, comp) in components.enumerated() {
            sof += [comp.id, UInt8(comp.h << 4 | comp.v), UInt8(i)]
        }
        out += Self.segment(progressive ? 0xC2 : 0xC0, sof)
        out += Self.dht(0x10, .endOfBlock)
        if restartInterval > 0 {
            out += Self.segment(0xDD, [UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF)])
        }
        return out
    }

    static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        let length = body.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }

    static func dht(_ index: UInt8, _ table: Table) -> [UInt8] {
        segment(0xC4, [index] + table.counts + table.symbols)
    }

    func sos(_ scan: Scan) -> [UInt8] {
        let (list, ss, se, ah, al) = parameters(scan)
        var body: [UInt8] = [UInt8(list.count)]
        for c in list { body += [components[c].id, 0x00] }
        body += [UInt8(ss), UInt8(se), UInt8(ah << 4 | al)]
        return Self.segment(0xDA, body)
    }

    func parameters(_ scan: Scan) -> (components: [Int], ss: Int, se: Int, ah: Int, al: Int) {
        switch scan {
        case .sequential(let list): (list, 0, 63, 0, 0)
        case .dcFirst(let list, let al): (list, 0, 0, 0, al)
        case .dcRefine(let list, let al): (list, 0, 0, al + 1, al)
        case .ac(let c, let ss, let se, let ah, let al): ([c], ss, se, ah, al)
        }
    }

    /// The scan's entropy-coded data, restart markers included.
    func entropy(_ scan: Scan, dcTable: Table) -> [UInt8] {
        let (list, _, _, _, al) = parameters(scan)
        let dcCodes = dcTable.codes
        var bits = BitWriter()
        var predictions = [Int](repeating: 0, count: list.count)
        // MCUs: one block of one component, or the interleaved grid.
        let mcusX: Int, mcusY: Int
        if list.count == 1 {
            (mcusX, mcusY) = blocks(list[0])
        } else {
            mcusX = (width + 8 * hmax - 1) / (8 * hmax)
            mcusY = (height + 8 * vmax - 1) / (8 * vmax)
        }
        var mcu = 0, restarts = 0
        for my in 0..<mcusY {
            for mx in 0..<mcusX {
                if restartInterval > 0 && mcu > 0 && mcu % restartInterval == 0 {
                    bits.flush()
                    bits.bytes += [0xFF, UInt8(0xD0 + restarts % 8)]
                    restarts += 1
                    predictions = predictions.map { _ in 0 }
                }
                mcu += 1
                for (i, c) in list.enumerated() {
                    let h = list.count == 1 ? 1 : components[c].h, v = list.count == 1 ? 1 : components[c].v
                    for by in 0..<v {
                        for bx in 0..<h {
                            let value = dc(c, mx * h + bx, my * v + by)
                            switch scan {
                            case .sequential, .dcFirst:
                                let shifted = value >> al
                                let diff = shifted - predictions[i]
                                predictions[i] = shifted
                                let magnitude = abs(diff)
                                let category = magnitude == 0 ? 0 : Int.bitWidth - magnitude.leadingZeroBitCount
                                let code = dcCodes[UInt8(category)]!
                                bits.write(code.code, code.length)
                                if category > 0 {
                                    let extra = diff < 0 ? diff + (1 << category) - 1 : diff
                                    bits.write(UInt32(extra), category)
                                }
                                if case .sequential = scan { bits.write(0, 1) } // EOB
                            case .dcRefine:
                                bits.write(UInt32((value >> al) & 1), 1)
                            case .ac:
                                bits.write(0, 1) // EOB0: this block's band is zero
                            }
                        }
                    }
                }
            }
        }
        bits.flush()
        return bits.bytes
    }
}

/// Bits, most significant first, with 0xFF stuffed and 1-bit padding.
struct BitWriter {
    var bytes: [UInt8] = []
    private var accumulator: UInt32 = 0
    private var count = 0

    mutating func write(_ value: UInt32, _ length: Int) {
        for i in stride(from: length - 1, through: 0, by: -1) {
            accumulator = accumulator << 1 | (value >> UInt32(i) & 1)
            count += 1
            if count == 8 {
                let byte = UInt8(accumulator & 0xFF)
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0) }
                accumulator = 0
                count = 0
            }
        }
    }

    mutating func flush() {
        if count > 0 { write(0x7F, 8 - count) }
    }
}
