import Foundation

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
    /// Finished outcomes held in `entries`.
    private var done = 0
    /// Where finished outcomes go past `outcomesInMemory`, so that a run
    /// over a million files of one size (every one a candidate) does not
    /// hold a million outcomes; made when first needed.
    private var finished: FinishedOutcomes?
    private let folder: String?
    private let inMemory = InMemoryLimit.items(DuplicateRegistry.outcomesInMemory)

    /// Outcomes kept in memory before they go to `folder`.
    static let outcomesInMemory = 2000

    /// `folder`: where to keep finished outcomes on disk (OUT/.thumbs/tmp),
    /// or nil to keep them all in memory (tests).
    init(folder: String? = nil) {
        self.folder = folder
    }

    /// Deletes the outcomes kept on disk (the run is over).
    func remove() {
        finished?.remove()
    }

    func claim(_ sha256: SHA256Hex.Digest) async -> Claim {
        switch entries[sha256] {
        case nil:
            if let outcome = finished?.outcome(of: sha256) { return .follower(outcome) }
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
        if done >= inMemory, let folder, finished == nil {
            finished = try? FinishedOutcomes(path: folder + "/duplicates-\(UUID().uuidString).sqlite")
        }
        if let finished, finished.keep(outcome, of: sha256) {
            entries[sha256] = nil
        } else {
            entries[sha256] = .done(outcome)
            done += 1
        }
    }

    /// Claims of `sha256` waiting for its leader's outcome right now (tests
    /// use it to know the followers are waiting before the leader finishes).
    func waiting(for sha256: SHA256Hex.Digest) -> Int {
        if case .running(let waiters) = entries[sha256] { return waiters.count }
        return 0
    }
}

/// Finished outcomes of `DuplicateRegistry`, by digest, in an SQLite file
/// (`SQLiteDatabase`: no journal, no fsync; a page cache of a few MB). A
/// lookup or an insert is a B-tree step of microseconds, made on the
/// registry's actor like the dictionary access it replaces.
final class FinishedOutcomes {
    private let database: SQLiteDatabase
    private let insert: SQLiteStatement
    private let find: SQLiteStatement
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    init(path: String) throws(SQLiteDatabase.Failure) {
        database = try SQLiteDatabase(creatingAt: path, cacheMiB: 4)
        try database.execute("CREATE TABLE outcomes(sha TEXT PRIMARY KEY, outcome TEXT NOT NULL) WITHOUT ROWID; BEGIN;")
        insert = try database.prepare("INSERT OR REPLACE INTO outcomes VALUES (?, ?)")
        find = try database.prepare("SELECT outcome FROM outcomes WHERE sha = ?")
    }

    func remove() {
        database.closeAndRemove()
    }

    /// Keeps `outcome`; false when it could not (the registry then keeps it in memory).
    func keep(_ outcome: DuplicateRegistry.Outcome, of sha256: SHA256Hex.Digest) -> Bool {
        guard let data = try? encoder.encode(StoredOutcome(outcome)) else { return false }
        insert.bind(1, sha256.hex)
        insert.bind(2, String(decoding: data, as: UTF8.self))
        return (try? insert.run()) != nil
    }

    func outcome(of sha256: SHA256Hex.Digest) -> DuplicateRegistry.Outcome? {
        find.bind(1, sha256.hex)
        defer { find.reset() }
        guard (try? find.step()) == true,
              let stored = try? decoder.decode(StoredOutcome.self, from: Data(find.text(0).utf8))
        else { return nil }
        return stored.outcome
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
        return outcome
    }
}
