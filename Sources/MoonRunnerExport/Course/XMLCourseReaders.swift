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
/// in order) or, when there are none, of the routes (`rte/rtept`).
enum GPXCourseReader {
    static func read(_ data: Data) throws(CourseFileError) -> Course {
        var w = XMLCourseWalker(data, format: "GPX")
        var track: [CoursePoint] = [], route: [CoursePoint] = []
        var point: CoursePoint?
        var names: [String: String] = [:]
        while let event = try w.next() {
            switch event {
            case let .start(name, attributes, line):
                if w.path.count == 1 && name != "gpx" {
                    throw CourseFileError("GPX: the document is <\(name)>, not <gpx>")
                }
                if name == "trkpt" || name == "rtept" {
                    guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                          GeoPoint(latitude: lat, longitude: lon).isValid else {
                        throw CourseFileError("GPX: <\(name)> at line \(line) has no valid lat/lon")
                    }
                    point = CoursePoint(latitude: lat, longitude: lon)
                }
            case let .end(name):
                switch name {
                case "ele" where w.parent() == "trkpt" || w.parent() == "rtept":
                    point?.elevation = w.number() ?? .nan
                case "name":
                    if let owner = w.parent(), ["trk", "rte", "metadata", "gpx"].contains(owner), names[owner] == nil {
                        names[owner] = w.text
                    }
                case "trkpt", "rtept":
                    if let p = point {
                        if name == "trkpt" { track.append(p) } else { route.append(p) }
                        guard track.count + route.count <= CourseFile.maxPoints else {
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
        return Course(name: name, points: points)
    }
}

/// TCX: the track points of the first `Course` (or, for a file with no
/// course, of the first `Activity`). `BeginPosition`/`EndPosition` of a lap
/// are not read: converters write 0,0 there.
enum TCXCourseReader {
    static func read(_ data: Data) throws(CourseFileError) -> Course {
        var w = XMLCourseWalker(data, format: "TCX")
        var points: [CoursePoint] = []
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
                case "Trackpoint" where reading:
                    // A track point may carry no position (heart rate only): skip it.
                    if let la = lat, let lo = lon {
                        guard GeoPoint(latitude: la, longitude: lo).isValid else {
                            throw w.error("a Trackpoint has an invalid position (\(la), \(lo))")
                        }
                        points.append(CoursePoint(latitude: la, longitude: lo, elevation: ele))
                        guard points.count <= CourseFile.maxPoints else {
                            throw w.error("more than \(CourseFile.maxPoints) points")
                        }
                    }
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
        return Course(name: name, points: points)
    }
}
