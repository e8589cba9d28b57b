import Foundation

/// The look-alike groups in position order, as a manifest's write pass
/// meets them: from `RunResults`' arrays (a run grouped in memory), or from
/// the `similar` table of `MergeIndex` (a merge, or a run grouped through
/// files). The pass calls `leaderMet` at `nextLeader` and `memberMet` at
/// `nextMember`.
final class LookalikeGroupCursor {
    private(set) var nextMember = Int.max
    private(set) var nextLeader = Int.max
    private let index: MergeIndex?
    private var memberStatement, leaderStatement: SQLiteStatement?
    private let members: [(position: Int, representative: Int, distance: Int)]
    private var memberAt = 0
    private var leaders: [Int] = []
    private var leaderAt = 0
    private var leaderIDs: [Int: String] = [:]
    /// The last representative looked up in the index: members of one
    /// group often follow each other (bursts, copies), one lookup for all.
    private var lastRepresentative: (position: Int, id: String?) = (-1, nil)

    init(index: MergeIndex?, members: [(position: Int, representative: Int, distance: Int)] = []) throws {
        self.index = index
        self.members = members
        if let index {
            let db = index.database
            let memberStatement = try db.prepare("SELECT pos, rep, distance FROM similar ORDER BY pos")
            let leaderStatement = try db.prepare("SELECT DISTINCT rep FROM similar ORDER BY rep")
            nextMember = try memberStatement.step() ? memberStatement.int(0) : Int.max
            nextLeader = try leaderStatement.step() ? leaderStatement.int(0) : Int.max
            self.memberStatement = memberStatement
            self.leaderStatement = leaderStatement
        } else {
            leaders = Array(Set(members.map(\.representative))).sorted()
            nextMember = members.first?.position ?? Int.max
            nextLeader = leaders.first ?? Int.max
        }
    }

    /// The item at `nextLeader` is `id`.
    func leaderMet(id: String) throws {
        if let index, let leaderStatement {
            try index.addRepresentative(position: nextLeader, id: id)
            nextLeader = try leaderStatement.step() ? leaderStatement.int(0) : Int.max
        } else {
            leaderIDs[nextLeader] = id
            leaderAt += 1
            nextLeader = leaderAt < leaders.count ? leaders[leaderAt] : Int.max
        }
    }

    /// The `similarTo` of the item at `nextMember`.
    func memberMet() throws -> SimilarReference? {
        var reference: SimilarReference?
        if let index, let memberStatement {
            let representative = memberStatement.int(1), distance = memberStatement.int(2)
            if lastRepresentative.position != representative {
                lastRepresentative = (representative, try index.representativeID(position: representative))
            }
            reference = lastRepresentative.id.map { SimilarReference(id: $0, distance: distance) }
            nextMember = try memberStatement.step() ? memberStatement.int(0) : Int.max
        } else {
            let member = members[memberAt]
            reference = leaderIDs[member.representative].map { SimilarReference(id: $0, distance: member.distance) }
            memberAt += 1
            nextMember = memberAt < members.count ? members[memberAt].position : Int.max
        }
        return reference
    }
}
