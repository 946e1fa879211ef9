import FoundationEssentials
import MoonRunnerCore

/// Walks an XML document keeping the path of open elements and the text of
/// the current leaf, for the two XML course readers.
struct XMLCourseWalker {
    private var reader: XMLEventReader
    private(set) var path: [String] = []
    private(set) var text = ""
    private let format: String

    /// Leaf text longer than this is cut (no number or name is that long).
    static let maxText = 4096

    init(_ data: Data, format: String) {
        reader = XMLEventReader(data)
        self.format = format
    }

    var line: Int { reader.line }

    /// The parent of the element just closed or opened.
    func parent(_ up: Int = 1) -> String? { path.count > up ? path[path.count - 1 - up] : nil }

    /// The next start or end tag (text is gathered into `text`); nil at the end.
    mutating func next() throws(CourseFileError) -> XMLEvent? {
        while true {
            let event: XMLEvent?
            do {
                event = try reader.next()
            } catch {
                throw CourseFileError("\(format): broken XML at line \(error.line): \(error.message)")
            }
            switch event {
            case nil:
                return nil
            case let .start(name, _, _)?:
                path.append(name)
                text = ""
                return event
            case .end?:
                return event
            case let .text(t)?:
                if text.utf8.count < Self.maxText { text += t }
            }
        }
    }

    /// Call after handling an `.end`.
    mutating func closed() {
        if !path.isEmpty { path.removeLast() }
        text = ""
    }

    func number() -> Double? {
        Double(text.trimmingSpacesAndNewlines())
    }

    func error(_ message: String) -> CourseFileError {
        CourseFileError("\(format): \(message) (line \(line))")
    }
}

/// GPX 1.0/1.1: the points of the tracks (`trk/trkseg/trkpt`, every segment
/// in order) or, when there are none, of the routes (`rte/rtept`). Every
/// waypoint (`wpt`) is a mark, of the kind its `type` or `sym` names (else
/// generic), and so is a route point whose `type` or `sym` names a kind
/// (a cue sheet, as RideWithGPS and BaseCamp write them); `name`, and
/// `desc` or `cmt` as its notes.
enum GPXCourseReader {
    /// What a `wpt` or `rtept` says beside its position.
    private struct MarkText {
        var name = "", notes = "", comment = "", type = "", sym = ""
    }

    static func read(_ data: Data) throws(CourseFileError) -> Course {
        var w = XMLCourseWalker(data, format: "GPX")
        var track: [CoursePoint] = [], route: [CoursePoint] = []
        var marks: [CourseMark] = []
        var point: CoursePoint?
        var text = MarkText()
        var names: [String: String] = [:]
        while let event = try w.next() {
            switch event {
            case let .start(name, attributes, line):
                if w.path.count == 1 && name != "gpx" {
                    throw CourseFileError("GPX: the document is <\(name)>, not <gpx>")
                }
                if name == "trkpt" || name == "rtept" || name == "wpt" {
                    guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                          GeoPoint(latitude: lat, longitude: lon).isValid else {
                        throw CourseFileError("GPX: <\(name)> at line \(line) has no valid lat/lon")
                    }
                    point = CoursePoint(latitude: lat, longitude: lon)
                    text = MarkText()
                }
            case let .end(name):
                switch name {
                case "ele" where w.parent() == "trkpt" || w.parent() == "rtept":
                    point?.elevation = w.number() ?? .nan
                case "name" where w.parent() == "wpt" || w.parent() == "rtept": text.name = w.text
                case "desc" where w.parent() == "wpt" || w.parent() == "rtept": text.notes = w.text
                case "cmt" where w.parent() == "wpt" || w.parent() == "rtept": text.comment = w.text
                case "type" where w.parent() == "wpt" || w.parent() == "rtept": text.type = w.text
                case "sym" where w.parent() == "wpt" || w.parent() == "rtept": text.sym = w.text
                case "name":
                    if let owner = w.parent(), ["trk", "rte", "metadata", "gpx"].contains(owner), names[owner] == nil {
                        names[owner] = w.text
                    }
                case "trkpt", "rtept", "wpt":
                    if let p = point {
                        if name == "trkpt" { track.append(p) } else if name == "rtept" { route.append(p) }
                        if let m = mark(p, text, waypoint: name == "wpt") { marks.append(m) }
                        guard track.count + route.count + marks.count <= CourseFile.maxPoints else {
                            throw w.error("more than \(CourseFile.maxPoints) points")
                        }
                    }
                    point = nil
                default:
                    break
                }
                w.closed()
            case .text:
                break
            }
        }
        let points = track.isEmpty ? route : track
        guard !points.isEmpty else { throw CourseFileError("GPX: the file holds no track (trkpt) or route (rtept) points") }
        let name = (track.isEmpty ? names["rte"] : names["trk"]) ?? names["metadata"] ?? names["gpx"] ?? ""
        return Course(name: name, points: points, marks: marks)
    }

    /// The mark a waypoint always is, and a route point is when its type or
    /// symbol names a kind.
    private static func mark(_ p: CoursePoint, _ t: MarkText, waypoint: Bool) -> CourseMark? {
        guard let kind = CueKind(gpx: t.type) ?? CueKind(gpx: t.sym) ?? (waypoint ? .generic : nil) else { return nil }
        let name = t.name.trimmingSpacesAndNewlines()
        let notes = (t.notes.isEmpty ? t.comment : t.notes).trimmingSpacesAndNewlines()
        return CourseMark(latitude: p.latitude, longitude: p.longitude, kind: kind, name: name.isEmpty ? nil : name,
                          notes: notes.isEmpty ? nil : notes)
    }
}

/// TCX: the track points of the first `Course` (or, for a file with no
/// course, of the first `Activity`), and that course's `CoursePoint`s as
/// marks (`PointType`, `Name`, `Notes`; an unknown type is generic).
/// `BeginPosition`/`EndPosition` of a lap are not read: converters write
/// 0,0 there.
enum TCXCourseReader {
    /// A `CoursePoint` as it is read.
    private struct PointText {
        var lat: Double?, lon: Double?
        var name = "", notes = "", type = ""

        /// Takes the element just closed when it is one of a course point's; false otherwise.
        mutating func take(_ element: String, _ w: XMLCourseWalker) -> Bool {
            let position = w.parent() == "Position" && w.parent(2) == "CoursePoint"
            switch element {
            case "LatitudeDegrees" where position: lat = w.number()
            case "LongitudeDegrees" where position: lon = w.number()
            case "Name" where w.parent() == "CoursePoint": name = w.text
            case "Notes" where w.parent() == "CoursePoint": notes = w.text
            case "PointType" where w.parent() == "CoursePoint": type = w.text
            default: return false
            }
            return true
        }
    }

    static func read(_ data: Data) throws(CourseFileError) -> Course {
        var w = XMLCourseWalker(data, format: "TCX")
        var points: [CoursePoint] = []
        var marks: [CourseMark] = []
        var cue = PointText()
        var lat: Double?, lon: Double?, ele = Double.nan
        var name = ""
        /// The Course or Activity being read; later ones are ignored.
        var owner: String?
        var ownerDone = false
        while let event = try w.next() {
            switch event {
            case let .start(element, _, _):
                if w.path.count == 1 && element != "TrainingCenterDatabase" {
                    throw CourseFileError("TCX: the document is <\(element)>, not <TrainingCenterDatabase>")
                }
                if (element == "Course" || element == "Activity") && owner == nil && !ownerDone { owner = element }
                if element == "Trackpoint" {
                    lat = nil
                    lon = nil
                    ele = .nan
                }
                if element == "CoursePoint" { cue = PointText() }
            case let .end(element):
                let reading = owner != nil && w.path.contains(owner ?? "")
                switch element {
                case "LatitudeDegrees" where w.parent() == "Position" && w.parent(2) == "Trackpoint":
                    lat = w.number()
                case "LongitudeDegrees" where w.parent() == "Position" && w.parent(2) == "Trackpoint":
                    lon = w.number()
                case "AltitudeMeters" where w.parent() == "Trackpoint":
                    ele = w.number() ?? .nan
                case "Name" where w.parent() == "Course" && reading && name.isEmpty:
                    name = w.text
                case _ where cue.take(element, w):
                    break
                case "CoursePoint" where reading:
                    if let m = try mark(cue, w) { marks.append(m) }
                case "Trackpoint" where reading:
                    try append(lat, lon, ele, to: &points, w)
                case "Course", "Activity":
                    if owner == element && w.path.filter({ $0 == element }).count == 1 {
                        owner = nil
                        ownerDone = true
                    }
                default:
                    break
                }
                w.closed()
            case .text:
                break
            }
        }
        guard !points.isEmpty else {
            throw CourseFileError("TCX: the file holds no Trackpoint with a Position (a course needs its track points)")
        }
        return Course(name: name, points: points, marks: marks)
    }

    /// A track point's position into `points`; one without a position (heart rate only) is skipped.
    private static func append(_ lat: Double?, _ lon: Double?, _ ele: Double, to points: inout [CoursePoint],
                               _ w: XMLCourseWalker) throws(CourseFileError) {
        guard let la = lat, let lo = lon else { return }
        guard GeoPoint(latitude: la, longitude: lo).isValid else {
            throw w.error("a Trackpoint has an invalid position (\(la), \(lo))")
        }
        points.append(CoursePoint(latitude: la, longitude: lo, elevation: ele))
        guard points.count <= CourseFile.maxPoints else { throw w.error("more than \(CourseFile.maxPoints) points") }
    }

    /// A course point as a mark; nil without a position (nothing to place), refused with an invalid one.
    private static func mark(_ c: PointText, _ w: XMLCourseWalker) throws(CourseFileError) -> CourseMark? {
        guard let la = c.lat, let lo = c.lon else { return nil }
        guard GeoPoint(latitude: la, longitude: lo).isValid else {
            throw w.error("a CoursePoint has an invalid position (\(la), \(lo))")
        }
        let name = c.name.trimmingSpacesAndNewlines(), notes = c.notes.trimmingSpacesAndNewlines()
        return CourseMark(latitude: la, longitude: lo, kind: CueKind(tcx: c.type) ?? .generic,
                          name: name.isEmpty ? nil : name, notes: notes.isEmpty ? nil : notes)
    }
}
