import Foundation

/// Makes identical source bytes decode once per run.
///
/// The first item with a given SHA-256 leads and decodes; the others wait for
/// its outcome and then only link or copy its outputs under their own names.
///
/// Keys are `SourceDigest`s, made of `SHA256Hex.Digest`s, which only a hash
/// of every byte hashed can make: a read or hash that failed has no digest,
/// so it can never be taken for another file's bytes. A partly read source
/// (`SourceBytes.partial`) has a key of its own kind, over its size and the
/// bytes it read: it meets only sources of the same size that read the
/// same bytes, never a file hashed whole.
actor DuplicateRegistry {
    struct Outcome: Sendable {
        var leaderID: String
        /// The leader's position in source order (`SourceOrderLeaders`).
        var leaderPosition = 0
        var info: SourceImageInfo?
        /// The path that decoded the leader (nil when it failed).
        var decoder: DecodePath?
        /// Placeholders, colour and perceptual hash of the pixels.
        var signature: ImageSignature?
        var outputs: [ManifestOutput]
        var error: ItemError?
        /// A video's facts (`video` in the manifest).
        var video: VideoFacts? = nil
        /// The leader's warnings (a colour profile that could not be used):
        /// a duplicate's pixels are the leader's, so are its warnings.
        var warnings: [String] = []
        /// The leader was read in part, but its first plan declined and a
        /// later entry read more of it than its key covers: the key says
        /// nothing of the bytes that made these outputs, so a follower
        /// hashes itself whole (`ItemProcessor.decodeOnce`).
        var readPastKey = false
        /// With `readPastKey`: the leader's sha256, hashed whole after its
        /// decode; a follower is its duplicate only with the same.
        var wholeSHA256: String? = nil
    }

    enum Claim: Sendable {
        case leader
        case follower(Outcome)
    }

    /// The followers waiting for each leader still running.
    private var running: [SourceDigest: [CheckedContinuation<Outcome, Never>]] = [:]
    /// Finished outcomes by digest: in memory up to `outcomesInMemory`,
    /// then in a scratch file, so that a run over a million files of one
    /// size (every one a candidate) does not hold a million outcomes.
    private let finished: SpillingStore<Outcome>

    /// What a finished outcome costs in memory: about 2 KiB (the leader's
    /// id, three outputs of four strings each, the placeholders' and the
    /// hashes' strings, the table's slot and the digest's 64-character key).
    static let outcomeBytes = 2048

    /// Outcomes kept in memory before they go to `folder` (`SpillLimit`:
    /// 2,048).
    static var outcomesInMemory: Int { SpillLimit.entries(bytesPerEntry: outcomeBytes) }

    /// `folder`: where to keep finished outcomes on disk (OUT/.thumbs/tmp),
    /// or nil to keep them all in memory (tests).
    init(folder: String? = nil) {
        finished = SpillingStore(path: folder.map { $0 + "/duplicates-\(UUID().uuidString).sqlite" }, limit: Self.outcomesInMemory)
    }

    /// Deletes the outcomes kept on disk (the run is over).
    func remove() {
        finished.remove()
    }

    func claim(_ sha256: SHA256Hex.Digest) async -> Claim {
        await claim(.whole(sha256))
    }

    func claim(_ sha256: SourceDigest) async -> Claim {
        guard running[sha256] != nil else {
            if let outcome = finished.value(for: sha256.key) { return .follower(outcome) }
            running[sha256] = []
            return .leader
        }
        // The closure runs before the actor is left: the leader is still running.
        let outcome = await withCheckedContinuation { running[sha256]!.append($0) }
        return .follower(outcome)
    }

    func finish(_ sha256: SHA256Hex.Digest, _ outcome: Outcome) {
        finish(.whole(sha256), outcome)
    }

    func finish(_ sha256: SourceDigest, _ outcome: Outcome) {
        // The outcome is stored before the waiters resume and the entry
        // goes, so that no claim in between finds neither. A file that
        // cannot be written leaves it in the store's memory: nothing to do.
        try? finished.set(outcome, for: sha256.key)
        for waiter in running.removeValue(forKey: sha256) ?? [] { waiter.resume(returning: outcome) }
    }

    /// Claims of `sha256` waiting for its leader's outcome right now (tests
    /// use it to know the followers are waiting before the leader finishes).
    func waiting(for sha256: SHA256Hex.Digest) -> Int {
        running[.whole(sha256)]?.count ?? 0
    }
}

/// What the registry knows a source's bytes by: the SHA-256 of all of them,
/// or the digest of those a partly read source read
/// (`SourceBytes.init(hashing:ranges:interrupt:)`). The two kinds never meet: their keys in
/// the store differ by a prefix as well as by their hashed tag.
enum SourceDigest: Sendable, Hashable {
    case whole(SHA256Hex.Digest)
    case partial(SHA256Hex.Digest)

    /// The key in the registry's store, and in `SourceOrderLeaders`.
    var key: String {
        switch self {
        case .whole(let digest): digest.hex
        case .partial(let digest): "read:" + digest.hex
        }
    }
}

extension DuplicateRegistry.Outcome: SpillableValue {
    /// The outcome as JSON (`StoredOutcome`).
    var spilledText: String? {
        (try? JSONEncoder().encode(StoredOutcome(self))).map { String(decoding: $0, as: UTF8.self) }
    }

    init?(spilled text: String) {
        guard let stored = try? JSONDecoder().decode(StoredOutcome.self, from: Data(text.utf8)) else { return nil }
        self = stored.outcome
    }
}

/// `DuplicateRegistry.Outcome` as JSON.
private struct StoredOutcome: Codable {
    var leaderID: String
    var leaderPosition: Int?
    var format: String?
    var width, height, orientation: Int?
    var decoder: DecodePath?
    var placeholder: Placeholder?
    var color, phash: String?
    var signed: Bool
    var outputs: [ManifestOutput]
    var errorCode: ItemError.Code?
    var errorMessage: String?
    var video: VideoFacts?
    var warnings: [String]?
    var readPastKey: Bool?
    var wholeSHA256: String?

    init(_ outcome: DuplicateRegistry.Outcome) {
        leaderID = outcome.leaderID
        leaderPosition = outcome.leaderPosition
        format = outcome.info?.format
        width = outcome.info?.width
        height = outcome.info?.height
        orientation = outcome.info?.orientation
        decoder = outcome.decoder
        signed = outcome.signature != nil
        placeholder = outcome.signature?.placeholder
        color = outcome.signature?.color
        phash = outcome.signature?.phash
        outputs = outcome.outputs
        errorCode = outcome.error?.code
        errorMessage = outcome.error?.message
        video = outcome.video
        warnings = outcome.warnings.isEmpty ? nil : outcome.warnings
        readPastKey = outcome.readPastKey ? true : nil
        wholeSHA256 = outcome.wholeSHA256
    }

    var outcome: DuplicateRegistry.Outcome {
        var info: SourceImageInfo?
        if let format, let width, let height, let orientation {
            info = SourceImageInfo(format: format, width: width, height: height, orientation: orientation)
        }
        let signature = signed ? ImageSignature(placeholder: placeholder, color: color, phash: phash) : nil
        let error = errorCode.map { ItemError($0, errorMessage ?? "") }
        var outcome = DuplicateRegistry.Outcome(leaderID: leaderID, info: info, decoder: decoder, signature: signature,
                                                outputs: outputs, error: error, video: video)
        outcome.leaderPosition = leaderPosition ?? 0
        outcome.warnings = warnings ?? []
        outcome.readPastKey = readPastKey ?? false
        outcome.wholeSHA256 = wholeSHA256
        return outcome
    }
}
