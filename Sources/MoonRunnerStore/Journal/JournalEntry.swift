import Foundation
import MoonRunnerCore

/// One commit as the journal keeps it: the batch, numbered. Encoded as JSON
/// (new fields of the snapshot need no format change) and deflated against
/// the record before it (`JournalCodec`): a two-second batch takes about 300 bytes.
struct JournalEntry: Codable, Sendable {
    /// Increasing over the journal's life; the database remembers the last it took in.
    var seq: UInt64
    var session: Int64
    var snapshot: SessionSnapshot
    /// time, fix_time, lat, lon, alt, speed, course, eph, distance, new_segment (1/0), heart rate
    /// (records written before heart rate have ten).
    var points: [[Double]]
    /// time, fix_time, lat, lon, eph; the reason beside.
    var rejected: [[Double]]
    var reasons: [String]
    var events: [SessionEvent]
    /// second, steps, cadence.
    var steps: [[Double]]
    var endTime: Double?
    /// time, bpm (NaN: missing); time, R–R ms. Absent from records written before heart rate.
    var hr: [[Double]]?
    var rr: [[Double]]?

    init(seq: UInt64, batch: CommitBatch) {
        self.seq = seq
        session = batch.sessionID
        snapshot = batch.snapshot
        points = batch.points.map { p in
            [p.time, p.fixTime, p.latitude, p.longitude, p.altitude, p.speed, p.course, p.eph, p.distance,
             p.newSegment ? 1 : 0, p.heartRate]
        }
        rejected = batch.rejected.map { [$0.time, $0.fix.time, $0.fix.latitude, $0.fix.longitude, $0.fix.eph] }
        reasons = batch.rejected.map(\.reason.rawValue)
        events = batch.events
        steps = batch.stepSeconds.map { [Double($0.second), Double($0.steps), $0.cadence] }
        endTime = batch.endTime
        hr = batch.heartRate.isEmpty ? nil : batch.heartRate.map { [$0.time, $0.bpm] }
        rr = batch.rrIntervals.isEmpty ? nil : batch.rrIntervals.map { [$0.time, $0.milliseconds] }
    }

    /// The batch back (rows that do not read are left out).
    var batch: CommitBatch {
        var b = CommitBatch(sessionID: session, snapshot: snapshot)
        b.points = points.compactMap { v in
            guard v.count >= 10 else { return nil }
            return TrackPoint(time: v[0], fixTime: v[1], latitude: v[2], longitude: v[3], altitude: v[4], speed: v[5],
                              course: v[6], eph: v[7], newSegment: v[9] != 0, distance: v[8],
                              heartRate: v.count >= 11 ? v[10] : .nan)
        }
        b.rejected = zip(rejected, reasons).compactMap { v, r in
            guard v.count >= 5, let reason = FixRejection(rawValue: r) else { return nil }
            return RejectedFix(time: v[0], fix: GPSFix(time: v[1], mode: 0, latitude: v[2], longitude: v[3], eph: v[4]),
                               reason: reason)
        }
        b.events = events
        b.stepSeconds = steps.compactMap { v in
            guard v.count >= 3, v[0].isFinite else { return nil }
            return StepSecondSample(second: Int64(v[0]), steps: Int(v[1]), cadence: v[2])
        }
        b.endTime = endTime
        b.heartRate = (hr ?? []).compactMap { v in v.count >= 2 ? HeartRatePoint(time: v[0], bpm: v[1]) : nil }
        b.rrIntervals = (rr ?? []).compactMap { v in v.count >= 2 ? RRInterval(time: v[0], milliseconds: v[1]) : nil }
        return b
    }

    /// The entry's JSON (what the next record is deflated against).
    func json() throws -> Data {
        let e = JSONEncoder()
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        e.outputFormatting = [.sortedKeys]  // the same order in every record: more of it matches the one before
        return try e.encode(self)
    }

    /// Deflated alone (`JournalCodec`); `SessionStore` deflates against the previous record.
    func encoded() throws -> Data {
        try JournalCodec.deflate(json())
    }

    static func decode(_ data: Data) throws -> JournalEntry {
        try decode(json: inflate(data))
    }

    static func decode(json: Data) throws -> JournalEntry {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try d.decode(JournalEntry.self, from: json)
    }

    /// The payloads of a journal's records in order, each inflated against the one before
    /// (`JournalCodec`); a record that does not read is left out, and so are those that need it.
    static func decodeAll(_ payloads: [Data]) -> [JournalEntry] {
        var previous: Data?
        var out: [JournalEntry] = []
        for payload in payloads {
            guard let raw = try? JournalCodec.inflate(payload, dictionary: previous) else {
                previous = nil
                continue
            }
            previous = raw
            if let entry = try? decode(json: raw) { out.append(entry) }
        }
        return out
    }

    static func deflate(_ raw: Data) throws -> Data { try JournalCodec.deflate(raw) }

    static func inflate(_ data: Data) throws -> Data { try JournalCodec.inflate(data) }
}
