@testable import ThumbsKit

/// The two RAW entries of `DecoderList.standard`, alone and in their order,
/// run as the list runs them: the first plan, and on a declined decode the
/// next entry's plan and decode.
enum RawEntries {
    static let list = DecoderList(entries: [RawPreviewDecoder(), LibRawDecoder()])

    /// The plan of the first RAW entry from `first` on that takes `source`;
    /// nil when neither does (not a RAW).
    static func plan(
        _ source: ImageSource, settings: OutputSettings, limits: DecodeLimits, from first: Int = 0
    ) throws(ItemError) -> DecodePlan? {
        let input = DecoderInput(source: source, format: nil, settings: settings, limits: limits)
        for index in list.entries.indices where index >= first {
            if var plan = try list.entries[index].plan(input) {
                plan.entry = index
                return plan
            }
        }
        return nil
    }

    /// `plan`'s decode; when it declines, the next entry's plan and decode.
    /// Nil when every entry declined.
    static func decode(
        _ source: ImageSource, plan: DecodePlan, settings: OutputSettings, limits: DecodeLimits
    ) throws(ItemError) -> DecodedImage? {
        var plan = plan
        while true {
            if let decoded = try plan.decode(source, settings, limits) { return decoded }
            guard let next = try Self.plan(source, settings: settings, limits: limits, from: plan.entry + 1) else { return nil }
            plan = next
        }
    }
}
