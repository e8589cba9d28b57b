import Foundation

/// `ColourProfile`'s verdicts on the profiles seen lately, so that lcms2
/// reads each distinct profile once, not once per image.
///
/// Reading a profile with lcms2 (`ProfileFacts`) costs about 40 µs for
/// libvips' 7 KB sRGB profile, where a batch of photos carries a handful of
/// distinct profiles; comparing the bytes with a cached one costs well under
/// a microsecond.
final class ProfileVerdicts: @unchecked Sendable {
    /// What lcms2 made of one profile.
    enum Verdict: Equatable, Sendable {
        /// lcms2 cannot open it, or it is cut short.
        case damaged
        case readable(ProfileFacts.Space, ColourProfile.Kind)
    }

    static let shared = ProfileVerdicts(capacity: 8)

    private let capacity: Int
    private let lock = NSLock()
    /// Most recently used first; guarded by `lock`.
    private var entries: [(bytes: Data, verdict: Verdict)] = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    func verdict(_ icc: UnsafeRawBufferPointer) -> Verdict {
        guard let base = icc.baseAddress, icc.count > 0 else { return .damaged }
        // Compared in place (Data's == is a memcmp), never copied on a hit.
        let key = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: icc.count, deallocator: .none)
        let cached: Verdict? = lock.withLock {
            guard let index = entries.firstIndex(where: { $0.bytes.count == key.count && $0.bytes == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.insert(entry, at: 0)
            return entry.verdict
        }
        if let cached { return cached }
        let verdict: Verdict = ProfileFacts(icc).map { .readable($0.space, ColourProfile.classify($0)) } ?? .damaged
        let copy = Data(icc)
        lock.withLock {
            guard !entries.contains(where: { $0.bytes == copy }) else { return }
            entries.insert((copy, verdict), at: 0)
            if entries.count > capacity { entries.removeLast() }
        }
        return verdict
    }
}
