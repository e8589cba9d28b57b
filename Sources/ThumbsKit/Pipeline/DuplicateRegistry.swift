/// Makes identical source bytes decode once per run.
///
/// The first item with a given SHA-256 leads and decodes; the others wait for
/// its outcome and then only link or copy its outputs under their own names.
///
/// Keys are `SHA256Hex.Digest`s, which only a hash of every byte can make:
/// a read or hash that failed has no digest, so it can never be taken for
/// another file's bytes.
actor DuplicateRegistry {
    struct Outcome: Sendable {
        var leaderID: String
        var info: SourceImageInfo?
        /// The path that decoded the leader (nil when it failed).
        var decoder: DecodePath?
        /// Placeholders, colour and perceptual hash of the pixels.
        var signature: ImageSignature?
        var outputs: [ManifestOutput]
        var error: ItemError?
        /// A video's facts (`video` in the manifest).
        var video: VideoFacts? = nil
    }

    enum Claim: Sendable {
        case leader
        case follower(Outcome)
    }

    private enum Entry {
        case running(waiters: [CheckedContinuation<Outcome, Never>])
        case done(Outcome)
    }

    private var entries: [SHA256Hex.Digest: Entry] = [:]

    func claim(_ sha256: SHA256Hex.Digest) async -> Claim {
        switch entries[sha256] {
        case nil:
            entries[sha256] = .running(waiters: [])
            return .leader
        case .done(let outcome):
            return .follower(outcome)
        case .running:
            let outcome = await withCheckedContinuation { continuation in
                switch entries[sha256] {
                case .running(let waiters)?: entries[sha256] = .running(waiters: waiters + [continuation])
                case .done(let outcome)?: continuation.resume(returning: outcome)
                case nil: preconditionFailure("duplicate entry vanished")
                }
            }
            return .follower(outcome)
        }
    }

    func finish(_ sha256: SHA256Hex.Digest, _ outcome: Outcome) {
        if case .running(let waiters) = entries[sha256] {
            for waiter in waiters { waiter.resume(returning: outcome) }
        }
        entries[sha256] = .done(outcome)
    }

    /// Claims of `sha256` waiting for its leader's outcome right now (tests
    /// use it to know the followers are waiting before the leader finishes).
    func waiting(for sha256: SHA256Hex.Digest) -> Int {
        if case .running(let waiters) = entries[sha256] { return waiters.count }
        return 0
    }
}
