import Foundation

/// A ThumbHash (evanw/thumbhash): a ~25-byte DCT summary of an image, with
/// its aspect ratio and alpha, from which a client renders a blurred
/// placeholder.
///
/// This is a port of the reference encoder `rgbaToThumbHash` in its
/// JavaScript form: double-precision arithmetic, and `Math.round`, which for
/// the non-negative values rounded here is `.toNearestOrAwayFromZero` (as
/// Rust's `round` too). The Python ports round halves to even instead, which
/// only matters for exact halves (see PlaceholderVectorTests).
public struct ThumbHash: Sendable, Hashable {
    /// The hash bytes, as the reference returns them.
    public let bytes: [UInt8]

    /// Standard base64 with padding, as the reference's demo page, Immich and
    /// the PyPI ports (`b64encode`) write it.
    public var base64: String { Data(bytes).base64EncodedString() }

    public enum EncodingError: Error, Equatable {
        /// The reference refuses images larger than 100×100: reduce first.
        case tooLarge(width: Int, height: Int)
    }

    /// The largest side the reference encoder accepts.
    public static let maximumSide = 100

    /// Encodes `pixels` (RGBA, RGB or grey; RGB and grey count as opaque).
    /// The image must fit in 100×100.
    public init(encoding pixels: PixelBuffer) throws {
        let w = pixels.width, h = pixels.height
        guard w <= Self.maximumSide, h <= Self.maximumSide else {
            throw EncodingError.tooLarge(width: w, height: h)
        }
        let n = w * h
        var red = [Double](repeating: 0, count: n)
        var green = [Double](repeating: 0, count: n)
        var blue = [Double](repeating: 0, count: n)
        var alpha = [Double](repeating: 1, count: n)
        Self.unpack(pixels, red: &red, green: &green, blue: &blue, alpha: &alpha)

        // The average colour, weighted by alpha.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<n {
            let a = alpha[i]
            avgR += a / 255 * red[i]
            avgG += a / 255 * green[i]
            avgB += a / 255 * blue[i]
            avgA += a
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(n)
        let lLimit = hasAlpha ? 5 : 7  // fewer luminance terms when alpha needs room
        let maxSide = Double(max(w, h))
        let lx = max(1, Int(Self.round(Double(lLimit * w) / maxSide)))
        let ly = max(1, Int(Self.round(Double(lLimit * h) / maxSide)))

        // RGBA -> LPQA, composited atop the average colour.
        var l = [Double](repeating: 0, count: n)  // luminance
        var p = [Double](repeating: 0, count: n)  // yellow - blue
        var q = [Double](repeating: 0, count: n)  // red - green
        for i in 0..<n {
            let a = alpha[i]
            let r = avgR * (1 - a) + a / 255 * red[i]
            let g = avgG * (1 - a) + a / 255 * green[i]
            let b = avgB * (1 - a) + a / 255 * blue[i]
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
        }

        let cosines = Cosines(width: w, height: h, frequencies: max(7, lx, ly))
        let lChannel = Self.encodeChannel(l, cosines, nx: max(3, lx), ny: max(3, ly))
        let pChannel = Self.encodeChannel(p, cosines, nx: 3, ny: 3)
        let qChannel = Self.encodeChannel(q, cosines, nx: 3, ny: 3)
        let aChannel = hasAlpha ? Self.encodeChannel(alpha, cosines, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        let header24 = Int(Self.round(63 * lChannel.dc))
            | (Int(Self.round(31.5 + 31.5 * pChannel.dc)) << 6)
            | (Int(Self.round(31.5 + 31.5 * qChannel.dc)) << 12)
            | (Int(Self.round(31 * lChannel.scale)) << 18)
            | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx)
            | (Int(Self.round(63 * pChannel.scale)) << 3)
            | (Int(Self.round(63 * qChannel.scale)) << 9)
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8((header24 >> 16) & 255),
            UInt8(header16 & 255), UInt8((header16 >> 8) & 255),
        ]
        if let aChannel {
            hash.append(UInt8(Int(Self.round(15 * aChannel.dc)) | (Int(Self.round(15 * aChannel.scale)) << 4)))
        }
        // The AC terms, four bits each, low nibble first.
        var isOdd = false
        for ac in [lChannel.ac, pChannel.ac, qChannel.ac, aChannel?.ac ?? []] {
            for f in ac {
                let u = UInt8(Int(Self.round(15 * f)))
                if isOdd {
                    hash[hash.count - 1] |= u << 4
                } else {
                    hash.append(u)
                }
                isOdd.toggle()
            }
        }
        bytes = hash
    }

    /// `Math.round` for the non-negative values the encoder rounds.
    private static func round(_ x: Double) -> Double { x.rounded(.toNearestOrAwayFromZero) }

    private static func unpack(_ pixels: PixelBuffer, red: inout [Double], green: inout [Double],
                               blue: inout [Double], alpha: inout [Double]) {
        let c = pixels.layout.channels
        pixels.bytes.withUnsafeBufferPointer { px in
            for i in 0..<pixels.pixelCount {
                let o = i * c
                switch pixels.layout {
                case .grey:
                    red[i] = Double(px[o]); green[i] = red[i]; blue[i] = red[i]
                case .rgb, .rgba:
                    red[i] = Double(px[o]); green[i] = Double(px[o + 1]); blue[i] = Double(px[o + 2])
                    if c == 4 { alpha[i] = Double(px[o + 3]) / 255 }
                }
            }
        }
    }

    /// cos(π/w · cx · (x + 0.5)) and cos(π/h · cy · (y + 0.5)) for every
    /// frequency the channels use, computed once per image: the reference
    /// computes them again for each term of each channel (about 7,000 `cos`
    /// calls for a 100×75 image), with the same expressions, so the values
    /// are the same bits.
    struct Cosines {
        let width: Int, height: Int
        /// Row `cx`: the `width` values for horizontal frequency `cx`.
        let x: [Double]
        /// Row `cy`: the `height` values for vertical frequency `cy`.
        let y: [Double]

        init(width w: Int, height h: Int, frequencies n: Int) {
            width = w
            height = h
            var x = [Double](repeating: 0, count: n * w)
            var y = [Double](repeating: 0, count: n * h)
            for c in 0..<n {
                for i in 0..<w { x[c * w + i] = cos(Double.pi / Double(w) * Double(c) * (Double(i) + 0.5)) }
                for i in 0..<h { y[c * h + i] = cos(Double.pi / Double(h) * Double(c) * (Double(i) + 0.5)) }
            }
            self.x = x
            self.y = y
        }
    }

    /// The DCT of one channel into a DC term and AC terms normalised to 0...1
    /// by the largest magnitude (`scale`), in the reference's triangular order.
    /// Each term sums `channel · fx · fy` row by row in the reference's order;
    /// up to eight terms are summed in one pass (`termSums`).
    private static func encodeChannel(_ channel: [Double], _ cosines: Cosines,
                                      nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
        let w = cosines.width, h = cosines.height
        let terms = Self.terms(nx: nx, ny: ny)
        let sums = termSums(channel, cosines, terms: terms)
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        for (i, term) in terms.enumerated() {
            let f = sums[i] / Double(w * h)
            if term.cx > 0 || term.cy > 0 {
                ac.append(f)
                scale = max(scale, abs(f))
            } else {
                dc = f
            }
        }
        if scale > 0 {
            for i in ac.indices {
                ac[i] = 0.5 + 0.5 / scale * ac[i]
            }
        }
        return (dc, ac, scale)
    }

    /// A channel's terms (cx, cy) in the reference's triangular order: for
    /// each cy, cx from 0 while cx · ny < nx · (ny − cy).
    static func terms(nx: Int, ny: Int) -> [(cx: Int, cy: Int)] {
        var terms: [(cx: Int, cy: Int)] = []
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                terms.append((cx, cy))
                cx += 1
            }
        }
        return terms
    }

    /// Σ_y Σ_x channel · fx · fy of each term (cx, cy), in `terms`' order:
    /// eight terms at a time (`sumEight`), whatever their `cy`.
    static func termSums(_ channel: [Double], _ cosines: Cosines, terms: [(cx: Int, cy: Int)]) -> [Double] {
        var sums: [Double] = []
        sums.reserveCapacity(terms.count)
        var first = 0
        while first < terms.count {
            let end = min(terms.count, first + 8)
            sums += sumEight(channel, cosines, terms: Array(terms[first..<end]))
            first = end
        }
        return sums
    }

    /// The sums Σ_y Σ_x channel · fx · fy of up to eight terms (one to
    /// eight), in one pass over the channel, the terms as the lanes of two
    /// SIMD4s: each lane adds its products in the reference's order (row by
    /// row, left to right) with the reference's expression, `(v · fx) · fy`
    /// then the add, element by element (IEEE, no fused multiply-add), so
    /// each sum is the same bits as the reference's own loop
    /// (PlaceholderSumsTests). One sum's adds wait on each other, so the
    /// time goes by passes: eight independent lanes a pass make the 35 terms
    /// of an opaque 100×75 image 5 passes, against 14 with four terms of one
    /// `cy` a pass and 35 one term at a time, as the reference sums them. Lanes beyond `terms.count`
    /// repeat the first and are not returned.
    private static func sumEight(_ channel: [Double], _ cosines: Cosines, terms: [(cx: Int, cy: Int)]) -> [Double] {
        let w = cosines.width, h = cosines.height
        let lane = { (k: Int) in k < terms.count ? terms[k] : terms[0] }
        // Each lane's cosines side by side: x by x, and y by y.
        var fx = [SIMD8<Double>](repeating: .zero, count: w)
        var fy = [SIMD8<Double>](repeating: .zero, count: h)
        for k in 0..<8 {
            let (cx, cy) = lane(k)
            for x in 0..<w { fx[x][k] = cosines.x[cx * w + x] }
            for y in 0..<h { fy[y][k] = cosines.y[cy * h + y] }
        }
        var f = SIMD8<Double>.zero
        channel.withUnsafeBufferPointer { channel in
            fx.withUnsafeBufferPointer { fx in
                for y in 0..<h {
                    let fy = fy[y]
                    let row = channel.baseAddress! + y * w
                    for x in 0..<w {
                        f += SIMD8<Double>(repeating: row[x]) * fx[x] * fy
                    }
                }
            }
        }
        return (0..<terms.count).map { f[$0] }
    }
}
