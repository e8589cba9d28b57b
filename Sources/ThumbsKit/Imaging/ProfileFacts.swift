import CVipsShim

/// The facts of an ICC profile that `ColourProfile.classify` judges, read
/// by lcms2 (`shim_icc_read_facts`).
struct ProfileFacts {
    enum Space: Equatable, Sendable { case rgb, grey, otherSpace }

    /// A tag: absent, present but unreadable, or read.
    enum Tag<Value> {
        case absent, malformed
        case read(Value)

        init(_ state: Int32, _ value: @autoclosure () -> Value) {
            switch state {
            case 1: self = .read(value())
            case 0: self = .absent
            default: self = .malformed
            }
        }
    }

    enum Colorants {
        case absent, malformed
        case read(ColourProfile.XYZ, ColourProfile.XYZ, ColourProfile.XYZ)
    }

    let space: Space
    let pcsIsXYZ: Bool
    /// A2B0-2 or D2B0-2: lcms2 would use lookup tables, not matrix and curves.
    let hasLookupTables: Bool
    let colorants: Colorants
    let white: Tag<ColourProfile.XYZ>
    /// RGB: three curves, grey: one; each at the 256 levels i / 255.
    let curves: Tag<[[Float]]>

    /// Nil when lcms2 cannot open the profile, or its header declares more
    /// bytes than there are.
    init?(_ icc: UnsafeRawBufferPointer) {
        var facts = shim_icc_facts()
        guard shim_icc_read_facts(icc.baseAddress, icc.count, &facts) == 0 else { return nil }
        space = facts.space == 1 ? .rgb : facts.space == 2 ? .grey : .otherSpace
        pcsIsXYZ = facts.pcs_xyz != 0
        hasLookupTables = facts.lookup_tables != 0
        func xyz(_ v: (Double, Double, Double)) -> ColourProfile.XYZ { .init(x: v.0, y: v.1, z: v.2) }
        switch facts.colorants {
        case 1: colorants = .read(xyz(facts.red), xyz(facts.green), xyz(facts.blue))
        case 0: colorants = .absent
        default: colorants = .malformed
        }
        white = Tag(facts.white, xyz(facts.white_xyz))
        let count = space == .rgb ? 3 : 1
        curves = Tag(facts.curves, withUnsafeBytes(of: facts.curve) { raw in
            let all = raw.bindMemory(to: Float.self)
            return (0..<count).map { Array(all[($0 * 256)..<($0 * 256 + 256)]) }
        })
    }
}
