import Foundation

/// The average colour of an image as `"#rrggbb"`, for the background a grid
/// shows before the thumbnail arrives.
///
/// Averaged in linear light, the way light mixes (averaging sRGB codes would
/// darken every edge between light and dark areas): each sRGB channel is
/// decoded with the exact IEC 61966-2-1 curve, the means are taken, and the
/// result is encoded back and rounded to the nearest code.
///
/// With alpha, each pixel counts in proportion to its alpha, so the colour is
/// that of the visible pixels (a transparent border, whatever RGB it stores,
/// does not tint the result). An image with no visible pixel at all falls back
/// to the unweighted mean.
public enum AverageColour {
    /// The average of `pixels` (RGB, RGBA or grey).
    public static func hex(of pixels: PixelBuffer) -> String {
        let (r, g, b) = average(of: pixels)
        return hex(red: r, green: g, blue: b)
    }

    /// The average as three sRGB codes.
    public static func average(of pixels: PixelBuffer) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let c = pixels.layout.channels
        // The six sums as locals, not arrays: an array element written in
        // the loop is checked for a unique buffer at every write.
        var weighted = SIMD4<Double>.zero, plain = SIMD4<Double>.zero
        var totalWeight = 0.0
        let table = linearTable
        table.withUnsafeBufferPointer { table in
            pixels.bytes.withUnsafeBufferPointer { px in
                for i in 0..<pixels.pixelCount {
                    let o = i * c
                    let weight = c == 4 ? Double(px[o + 3]) / 255 : 1
                    totalWeight += weight
                    let value = c == 1
                        ? SIMD4<Double>(repeating: table[Int(px[o])])
                        : SIMD4<Double>(table[Int(px[o])], table[Int(px[o + 1])], table[Int(px[o + 2])], 0)
                    weighted += SIMD4<Double>(repeating: weight) * value
                    plain += value
                }
            }
        }
        let means = totalWeight > 0
            ? (0..<3).map { weighted[$0] / totalWeight }
            : (0..<3).map { plain[$0] / Double(pixels.pixelCount) }
        return (encode(means[0]), encode(means[1]), encode(means[2]))
    }

    public static func hex(red: UInt8, green: UInt8, blue: UInt8) -> String {
        "#" + [red, green, blue].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// sRGB code -> linear light, 0...1.
    public static func sRGBToLinear(_ code: UInt8) -> Double { linearTable[Int(code)] }

    /// Linear light -> the nearest sRGB code.
    public static func linearToSRGB(_ linear: Double) -> UInt8 { encode(linear) }

    private static let linearTable: [Double] = (0...255).map { code in
        let v = Double(code) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func encode(_ linear: Double) -> UInt8 {
        let v = min(1, max(0, linear))
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(min(255, max(0, (s * 255).rounded())))
    }
}
