/// What a course point says: a turn to make or a place to know of. The raw
/// value is the wire name (`turn_ahead`'s `kind`, `course show`).
///
/// The list is TCX's `CoursePoint/PointType` and FIT's `course_point.type`
/// (their turn words, the points of interest and the climb categories);
/// forks read as the turn they are, and kinds this list does not name
/// are `generic`, so no point of a file is dropped for its type.
public enum CueKind: String, Sendable, Codable, CaseIterable {
    case left, right, straight
    case slightLeft = "slight_left", slightRight = "slight_right"
    case sharpLeft = "sharp_left", sharpRight = "sharp_right"
    case uTurn = "u_turn"
    case generic, summit, valley, water, food, danger
    case firstAid = "first_aid"
    case sprint
    case category4 = "category_4", category3 = "category_3", category2 = "category_2", category1 = "category_1"
    case horsCategory = "hors_category"

    /// True for the kinds that tell the wearer which way to go: said ahead
    /// and once more at the turn. The others are points of interest, said
    /// once as they come.
    public var isTurn: Bool {
        switch self {
        case .left, .right, .straight, .slightLeft, .slightRight, .sharpLeft, .sharpRight, .uTurn: true
        default: false
        }
    }

    /// The turn a signed change of direction is, degrees (positive: to the
    /// right, clockwise). The bands are the issue's: slight 40–60°, a turn
    /// 60–120°, sharp 120–170°, beyond that a U-turn (one that bends back on
    /// itself within the 20 m either side); below 40° a slight turn, since
    /// only turns found at 40° or more are named.
    public static func turn(degrees: Double) -> CueKind {
        let a = abs(degrees)
        let right = degrees > 0
        if a > 170 { return .uTurn }
        if a >= 120 { return right ? .sharpRight : .sharpLeft }
        if a >= 60 { return right ? .right : .left }
        return right ? .slightRight : .slightLeft
    }

    // MARK: The files' words

    /// TCX `PointType` as Garmin writes it ("Left", "Sharp Left", "U-Turn",
    /// "First Aid", "4th Category", "Hors Category"; case, spaces, hyphens
    /// and underscores ignored). Nil for a word that is no point type.
    public init?(tcx word: String) {
        guard let kind = Self.byWord[Self.key(word)] else { return nil }
        self = kind
    }

    /// The TCX `PointType` this kind is written as.
    public var tcxName: String {
        switch self {
        case .left: "Left"
        case .right: "Right"
        case .straight: "Straight"
        case .slightLeft: "Slight Left"
        case .slightRight: "Slight Right"
        case .sharpLeft: "Sharp Left"
        case .sharpRight: "Sharp Right"
        case .uTurn: "U-Turn"
        case .generic: "Generic"
        case .summit: "Summit"
        case .valley: "Valley"
        case .water: "Water"
        case .food: "Food"
        case .danger: "Danger"
        case .firstAid: "First Aid"
        case .sprint: "Sprint"
        case .category4: "4th Category"
        case .category3: "3rd Category"
        case .category2: "2nd Category"
        case .category1: "1st Category"
        case .horsCategory: "Hors Category"
        }
    }

    /// A GPX `<type>` or `<sym>`, as Garmin BaseCamp, RideWithGPS, Komoot
    /// and GPX Studio write them: the TCX words, and the phrases around them
    /// ("Turn Left", "Keep Right", "Bear Left", "Continue", "Drinking Water",
    /// "Turn Around"). Nil when the word names none of the kinds.
    public init?(gpx word: String) {
        let k = Self.key(word)
        if let kind = Self.byWord[k] {
            self = kind
            return
        }
        for (phrase, kind) in Self.phrases where k.contains(phrase) {
            self = kind
            return
        }
        return nil
    }

    /// FIT `course_point.type` (profile 21.x): the numbers of the kinds
    /// above, forks as the turn they are, and the newer points of interest
    /// (aid station, toilet, ...) as `generic`.
    public init(fit type: UInt8) {
        switch type {
        case 1: self = .summit
        case 2: self = .valley
        case 3: self = .water
        case 4: self = .food
        case 5: self = .danger
        case 6: self = .left
        case 7: self = .right
        case 8: self = .straight
        case 9: self = .firstAid
        case 10: self = .category4
        case 11: self = .category3
        case 12: self = .category2
        case 13: self = .category1
        case 14: self = .horsCategory
        case 15: self = .sprint
        case 16: self = .slightLeft   // left fork
        case 17: self = .slightRight  // right fork
        case 18: self = .straight     // middle fork
        case 19: self = .slightLeft
        case 20: self = .sharpLeft
        case 21: self = .slightRight
        case 22: self = .sharpRight
        case 23: self = .uTurn
        default: self = .generic
        }
    }

    /// The FIT `course_point.type` this kind is written as.
    public var fitType: UInt8 {
        switch self {
        case .generic: 0
        case .summit: 1
        case .valley: 2
        case .water: 3
        case .food: 4
        case .danger: 5
        case .left: 6
        case .right: 7
        case .straight: 8
        case .firstAid: 9
        case .category4: 10
        case .category3: 11
        case .category2: 12
        case .category1: 13
        case .horsCategory: 14
        case .sprint: 15
        case .slightLeft: 19
        case .sharpLeft: 20
        case .slightRight: 21
        case .sharpRight: 22
        case .uTurn: 23
        }
    }

    /// Lower case letters and digits only: "U-Turn", "u_turn" and "U Turn" are one word.
    static func key(_ word: String) -> String {
        String(word.lowercased().unicodeScalars.filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") }
            .map(Character.init))
    }

    private static let byWord: [String: CueKind] = {
        var table: [String: CueKind] = [:]
        for kind in allCases {
            table[key(kind.tcxName)] = kind
            table[key(kind.rawValue)] = kind
        }
        table["uturn"] = .uTurn
        table["category4"] = .category4
        table["category3"] = .category3
        table["category2"] = .category2
        table["category1"] = .category1
        table["horscategorie"] = .horsCategory
        table["hc"] = .horsCategory
        return table
    }()

    /// Words inside a longer phrase, the more specific first.
    private static let phrases: [(String, CueKind)] = [
        ("uturn", .uTurn), ("turnaround", .uTurn),
        ("sharpleft", .sharpLeft), ("sharpright", .sharpRight),
        ("slightleft", .slightLeft), ("slightright", .slightRight),
        ("bearleft", .slightLeft), ("bearright", .slightRight),
        ("keepleft", .slightLeft), ("keepright", .slightRight),
        ("forkleft", .slightLeft), ("forkright", .slightRight),
        ("left", .left), ("right", .right),
        ("straight", .straight), ("continue", .straight),
        ("firstaid", .firstAid), ("water", .water), ("food", .food), ("danger", .danger), ("summit", .summit),
        ("valley", .valley), ("sprint", .sprint),
    ]
}
