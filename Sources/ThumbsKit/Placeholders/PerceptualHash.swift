import Foundation

/// The 64-bit DCT perceptual hash, as imagehash's `phash` (hash_size 8,
/// highfreq_factor 4) computes it from a 32×32 greyscale image:
///
/// 1. the 2-D DCT-II of the 32×32 grey levels, unnormalised, along axis 0
///    (down the columns) and then axis 1 (`scipy.fftpack.dct` twice);
/// 2. the top-left 8×8 coefficients, the lowest frequencies;
/// 3. their median (numpy's: the mean of the two middle values of 64);
/// 4. one bit per coefficient, set when it is greater than the median, in
///    row-major order, the first bit the most significant: imagehash's hex
///    string read as a number.
///
/// The encoder takes the 32×32 grey image ready-made: the pipeline reduces the
/// decoded image to exactly 32×32, ignoring its aspect ratio, as imagehash
/// does. `greyscale(_:)` converts colour pixels the way Pillow's `convert("L")`
/// does, which imagehash applies before resizing.
public enum PerceptualHash {
    /// The side of the grey image the hash is computed from.
    public static let side = 32
    /// The side of the low-frequency block kept.
    public static let hashSide = 8

    /// The hash of a 32×32 grey image (1024 bytes, row by row). Returns nil
    /// for any other size.
    public static func hash(grey32 pixels: PixelBuffer) -> UInt64? {
        guard pixels.layout == .grey, pixels.width == side, pixels.height == side else { return nil }
        return hash(grey32: pixels.bytes)
    }

    /// The hash of 1024 grey levels, row by row.
    public static func hash(grey32 levels: [UInt8]) -> UInt64? {
        guard levels.count == side * side else { return nil }
        let coefficients = lowFrequencies(levels)
        let median = median(of: coefficients)
        var hash: UInt64 = 0
        for value in coefficients {
            hash = hash << 1 | (value > median ? 1 : 0)
        }
        return hash
    }

    /// imagehash's `str(hash)`: 16 lower-case hex digits.
    public static func hexString(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The one reading of a manifest's `phash` (PRODUCT.md: "16 hex
    /// digits"): exactly 16 ASCII hex digits, either case, and nothing else
    /// (no sign, space or `0x`, which `UInt64(_:radix:)` alone would let
    /// through or take as a shorter hash); nil otherwise. `thumbs verify`
    /// reports what this refuses, and look-alike grouping leaves it out.
    public static func parse(_ hex: String) -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        for byte in hex.utf8 {
            guard let digit = HexDigit.value(byte) else { return nil }
            digits += 1
            guard digits <= 16 else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return digits == 16 ? value : nil
    }

    /// The number of bits in which two hashes differ.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// Pillow's `convert("L")` for one pixel: ITU-R 601-2 luma in 16-bit
    /// fixed point, rounded (Pillow's `L24` macro; the docs' formula
    /// R*299/1000 + G*587/1000 + B*114/1000 is its exact-arithmetic form).
    @inline(__always)
    public static func greyLevel(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        let r: Int = Int(red) * 19595
        let g: Int = Int(green) * 38470
        let b: Int = Int(blue) * 7471
        return UInt8((r + g + b + 0x8000) >> 16)
    }

    /// Pillow's `convert("L")` for a whole buffer; alpha is ignored, as Pillow
    /// does. A grey buffer comes back as it is.
    public static func greyscale(_ pixels: PixelBuffer) -> PixelBuffer {
        let c = pixels.layout.channels
        guard c > 1 else { return pixels }
        var grey = [UInt8](repeating: 0, count: pixels.pixelCount)
        pixels.bytes.withUnsafeBufferPointer { px in
            for i in 0..<pixels.pixelCount {
                let o = i * c
                grey[i] = greyLevel(red: px[o], green: px[o + 1], blue: px[o + 2])
            }
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, layout: .grey, bytes: grey)!
    }

    /// The top-left 8×8 of the unnormalised 2-D DCT-II, row-major (row = the
    /// vertical frequency). Only these 64 of the 1024 coefficients are
    /// computed, as direct sums; scipy computes all of them through an FFT,
    /// so the values agree to about 1e-12, not bit for bit.
    static func lowFrequencies(_ levels: [UInt8]) -> [Double] {
        let n = side, k = hashSide
        // Along axis 0: column transforms, kept for the 8 lowest vertical frequencies.
        var vertical = [Double](repeating: 0, count: k * n)  // [u][x]
        for u in 0..<k {
            for x in 0..<n {
                var sum = 0.0
                for y in 0..<n {
                    sum += Double(levels[y * n + x]) * cosines[u * n + y]
                }
                vertical[u * n + x] = 2 * sum
            }
        }
        // Along axis 1.
        var result = [Double](repeating: 0, count: k * k)  // [u][v]
        for u in 0..<k {
            for v in 0..<k {
                var sum = 0.0
                for x in 0..<n {
                    sum += vertical[u * n + x] * cosines[v * n + x]
                }
                result[u * k + v] = 2 * sum
            }
        }
        return result
    }

    /// numpy's median: the mean of the two middle values for an even count.
    static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 0 ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[mid]
    }

    /// cos(π·k·(2i+1) / 2N) for k < 8, i < 32, row k.
    private static let cosines: [Double] = {
        var table = [Double](repeating: 0, count: hashSide * side)
        for k in 0..<hashSide {
            for i in 0..<side {
                table[k * side + i] = cos(Double.pi * Double(k) * Double(2 * i + 1) / Double(2 * side))
            }
        }
        return table
    }()
}
