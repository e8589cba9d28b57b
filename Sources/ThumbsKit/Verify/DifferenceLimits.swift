/// When an output looks changed from the baseline's: `--max-difference D`.
///
/// One number tunes both measures: an output is changed when its luma SSIM
/// falls below 1 − D (structure: a flip, a moved crop, another photo) or its
/// mean CIEDE2000 difference exceeds 100 × D (colour: channels swapped,
/// colour management lost). The default comes from measurement (README,
/// "Checking thumbnails in CI"): re-encodes and resampler changes stay well
/// inside it, every kind of real damage lies well outside.
public struct DifferenceLimits: Sendable, Equatable {
    public static let defaultMaxDifference = 0.025

    public var maxDifference: Double

    public init(maxDifference: Double = DifferenceLimits.defaultMaxDifference) {
        self.maxDifference = maxDifference
    }

    public var minimumSSIM: Double { 1 - maxDifference }
    public var maximumMeanDeltaE: Double { 100 * maxDifference }

    public func exceeded(by difference: PixelDifference) -> Bool {
        difference.ssim < minimumSSIM || difference.meanDeltaE > maximumMeanDeltaE
    }

    /// `SSIM 0.913 (limit 0.975), colour ΔE 7.2 (limit 2.5), p99 15.3`.
    public func describe(_ difference: PixelDifference) -> String {
        String(format: "SSIM %.3f (limit %.3f), colour ΔE %.1f (limit %.1f), p99 %.1f",
               difference.ssim, minimumSSIM, difference.meanDeltaE, maximumMeanDeltaE, difference.p99DeltaE)
    }
}
