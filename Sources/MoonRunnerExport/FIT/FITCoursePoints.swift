import MoonRunnerCore

/// The followed course's own points in a FIT activity: one `course_point`
/// (global 32) each, as a course file carries them (position, distance
/// along the course, type, name), so that the activity added as a course
/// has them again. FIT allows any message in any file; Garmin Connect
/// ignores them in an activity.
extension FITWriter {
    /// Local message type of `course_point` (after the writer's seven).
    static let coursePointLocal: UInt8 = 7
    /// Bytes of the name field (UTF-8 with its NUL; longer names are cut at a character).
    static let coursePointName: UInt8 = 32

    static func writeCoursePoints(_ session: ExportSession, into fit: inout FITEncoder) {
        guard !session.coursePoints.isEmpty else { return }
        fit.define(local: coursePointLocal, global: FITProfile.Message.coursePoint, fields: [
            .init(number: FITProfile.Common.messageIndex, type: .uint16),
            .init(number: 2, type: .sint32),   // position_lat
            .init(number: 3, type: .sint32),   // position_long
            .init(number: 4, type: .uint32),   // distance (scale 100: cm along the course)
            .init(number: 5, type: .enumeration),   // type
            .init(number: 6, type: .string, count: coursePointName),   // name
        ])
        for (k, c) in session.coursePoints.enumerated() {
            fit.begin(local: coursePointLocal)
            fit.uint16(UInt16(truncatingIfNeeded: k))
            fit.sint32(FITProfile.semicircles(c.latitude))
            fit.sint32(FITProfile.semicircles(c.longitude))
            fit.uint32(c.courseM.isFinite && c.courseM >= 0 ? UInt32(min(c.courseM * 100, 4e9).rounded()) : FITEncoder.invalidUInt32)
            fit.enumeration(c.kind.fitType)
            fit.string(c.name ?? "", size: coursePointName)
        }
    }
}
