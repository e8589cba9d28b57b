import Foundation

/// Limits checked before any pixel is decoded.
public struct DecodeLimits: Sendable, Hashable {
    public var maxPixels: Int
    public var failOn: FailOn

    public init(maxPixels: Int = RunOptions.Defaults.maxPixels, failOn: FailOn = RunOptions.Defaults.failOn) {
        self.maxPixels = maxPixels
        self.failOn = failOn
    }

    /// Throws `tooLarge` when `width` × `height` is over `maxPixels`.
    func checkPixels(width: Int, height: Int) throws(ItemError) {
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > maxPixels {
            throw ItemError.tooLarge(
                "\(width)×\(height) is \(Self.megapixels(width, height)) MP, over the limit of \(Self.megapixels(maxPixels, 1)) MP; raise --max-pixels to process it"
            )
        }
    }

    private static func megapixels(_ w: Int, _ h: Int) -> String {
        String(format: "%.1f", Double(w) * Double(h) / 1_000_000)
    }
}
