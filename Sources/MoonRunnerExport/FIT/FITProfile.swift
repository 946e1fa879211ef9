/// The numbers of the FIT profile MoonRunner writes (Garmin FIT SDK
/// Profile.xlsx; checked against the SDK's generated profile, version
/// 21.218): global message numbers, field numbers and enum values.
enum FITProfile {
    /// Profile version announced in the header (21.32, major × 100 + minor);
    /// every message and field written here is older than that.
    static let version: UInt16 = 2132
    /// UNIX time of the FIT epoch, 1989-12-31 00:00:00 UTC.
    static let epoch: Double = 631_065_600

    enum Message {
        static let fileID: UInt16 = 0
        static let session: UInt16 = 18
        static let lap: UInt16 = 19
        static let record: UInt16 = 20
        static let event: UInt16 = 21
        static let activity: UInt16 = 34
        /// R–R intervals: field 0 `time`, an array of uint16, scale 1000 (s).
        static let hrv: UInt16 = 78
        static let coursePoint: UInt16 = 32
        /// A planned workout and its steps (`FITWorkoutWriter`, `FITWorkoutReader`).
        static let workout: UInt16 = 26
        static let workoutStep: UInt16 = 27
    }

    /// Field numbers common to many messages.
    enum Common {
        static let messageIndex: UInt8 = 254
        static let timestamp: UInt8 = 253
    }

    enum FileType {
        static let activity: UInt8 = 4
        static let workout: UInt8 = 5
    }
    enum Manufacturer { static let development: UInt16 = 255 }

    enum Event {
        static let timer: UInt8 = 0
        static let session: UInt8 = 8
        static let lap: UInt8 = 9
        static let activity: UInt8 = 26
    }

    enum EventType {
        static let start: UInt8 = 0
        static let stop: UInt8 = 1
        static let stopAll: UInt8 = 4
    }

    enum TimerTrigger {
        static let manual: UInt32 = 0
        static let auto: UInt32 = 1
    }

    // `sport` and `sub_sport` are the activity's (`ActivityProfile.SportNames`).
    enum Intensity { static let active: UInt8 = 0 }

    enum LapTrigger {
        static let manual: UInt8 = 0
        static let time: UInt8 = 1
        static let distance: UInt8 = 2
        static let sessionEnd: UInt8 = 7
    }

    enum SessionTrigger { static let activityEnd: UInt8 = 0 }
    enum ActivityType { static let manual: UInt8 = 0 }

    /// FIT timestamp (seconds since the FIT epoch) of a UNIX time.
    static func timestamp(_ unix: Double) -> UInt32 {
        guard unix.isFinite else { return FITEncoder.invalidUInt32 }
        let s = (unix - epoch).rounded(.down)
        guard s >= 0 else { return 0 }
        return UInt32(min(s, Double(UInt32.max - 1)))
    }

    /// Degrees as FIT semicircles (2³¹ per 180°).
    static func semicircles(_ degrees: Double) -> Int32 {
        guard degrees.isFinite else { return FITEncoder.invalidSInt32 }
        let v = (degrees * 2_147_483_648.0 / 180).rounded()
        return Int32(max(-2_147_483_647, min(2_147_483_646, v)))
    }

    /// A non-negative quantity × scale as uint32, invalid when unknown or too large.
    static func scaled32(_ value: Double, _ scale: Double, offset: Double = 0) -> UInt32 {
        let v = ((value + offset) * scale).rounded()
        guard v.isFinite, v >= 0, v < Double(FITEncoder.invalidUInt32) else { return FITEncoder.invalidUInt32 }
        return UInt32(v)
    }

    /// A non-negative quantity × scale as uint16, invalid when unknown or too large.
    static func scaled16(_ value: Double, _ scale: Double, offset: Double = 0) -> UInt16 {
        let v = ((value + offset) * scale).rounded()
        guard v.isFinite, v >= 0, v < Double(FITEncoder.invalidUInt16) else { return FITEncoder.invalidUInt16 }
        return UInt16(v)
    }
}
