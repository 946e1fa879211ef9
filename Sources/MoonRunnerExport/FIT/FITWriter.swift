import FoundationEssentials
import MoonRunnerCore

/// A FIT activity file written by MoonRunner's own encoder: file_id, timer
/// events (start, stop at each pause, start at each resume, stop at the end),
/// one record per track point, then laps, session and activity (Garmin's
/// "summary last" order); totals are the session's own (moving time as timer time).
///
/// Records: timestamp (FIT epoch), position (semicircles), altitude and
/// enhanced_altitude (fused; scale 5, offset 500), distance (scale 100, along
/// the track), speed (scale 1000), heart rate (invalid where missing) and
/// cadence: FIT's running cadence is per foot, half the step rate with its
/// fraction in 1/128 (171 steps/min is 85 + 64/128); `total_cycles` are strides.
/// R–R intervals: `hrv` messages among the records (seconds, scale 1000), as Garmin's
/// watches write them. A DEM's share of the elevation: developer fields (`FITElevationSource`).
public enum FITWriter {
    private enum Local {
        static let fileID: UInt8 = 0
        static let event: UInt8 = 1
        static let record: UInt8 = 2
        static let lap: UInt8 = 3
        static let session: UInt8 = 4
        static let activity: UInt8 = 5
        static let hrv: UInt8 = 6
        static let workout: UInt8 = 7
        static let workoutStep: UInt8 = 8
    }

    /// R–R intervals per `hrv` message (Garmin's watches write five).
    static let rrPerMessage = 5

    public static func write(_ session: ExportSession) -> Data {
        let track = ExportTrack(session)
        var fit = FITEncoder(capacity: 512 + session.points.count * 25 + session.laps.count * 70)
        writeFileID(session, into: &fit)
        let elevationSource = FITElevationSource.applies(to: session)
        if elevationSource { FITElevationSource.describe(into: &fit) }
        defineTrackMessages(into: &fit)
        defineSummaryMessages(into: &fit, elevationSource: elevationSource)

        let timers = timerEvents(session)
        var next = 0
        var nextRR = 0
        func writeRR(until t: Double) {
            var end = nextRR
            while end < session.rrIntervals.count && session.rrIntervals[end].time <= t { end += 1 }
            while nextRR < end {
                let upTo = min(end, nextRR + rrPerMessage)
                writeHRV(session.rrIntervals[nextRR..<upTo], into: &fit)
                nextRR = upTo
            }
        }
        for (i, p) in session.points.enumerated() {
            writeRR(until: p.time)
            // Starts go before a record at the same instant, stops after it.
            while next < timers.count,
                  timers[next].time < p.time || (timers[next].time == p.time && timers[next].type == FITProfile.EventType.start) {
                writeTimer(timers[next], into: &fit)
                next += 1
            }
            writeRecord(p, distance: track.distance.cumulative[i], cadence: track.cadence[i],
                        hasCadence: track.hasCadence, into: &fit)
        }
        writeRR(until: .infinity)
        while next < timers.count {
            writeTimer(timers[next], into: &fit)
            next += 1
        }
        writeCoursePoints(session, into: &fit)
        if let workout = session.workout {
            FITWorkoutWriter.write(workout, into: &fit, workoutLocal: Local.workout, stepLocal: Local.workoutStep)
        }

        let paused = PausedTime(session.pauses)
        for (k, lap) in session.laps.enumerated() {
            writeLap(lap, index: k, session: session, paused: paused, into: &fit)
        }
        writeSession(session, elevationSource: elevationSource, into: &fit)
        writeActivity(session, into: &fit)
        return fit.file(profileVersion: FITProfile.version)
    }

    // MARK: Definitions

    private static func writeFileID(_ session: ExportSession, into fit: inout FITEncoder) {
        fit.define(local: Local.fileID, global: FITProfile.Message.fileID, fields: [
            .init(number: 0, type: .enumeration),   // type
            .init(number: 1, type: .uint16),        // manufacturer
            .init(number: 2, type: .uint16),        // product
            .init(number: 3, type: .uint32z),       // serial_number
            .init(number: 4, type: .uint32),        // time_created
        ])
        fit.begin(local: Local.fileID)
        fit.enumeration(FITProfile.FileType.activity)
        fit.uint16(FITProfile.Manufacturer.development)
        fit.uint16(1)
        let serial = UInt32(truncatingIfNeeded: session.id)
        fit.uint32(serial == 0 ? 1 : serial)
        fit.uint32(FITProfile.timestamp(session.startTime))
    }

    /// The definitions of the messages written along the track: timer events, records and R–R intervals.
    private static func defineTrackMessages(into fit: inout FITEncoder) {
        fit.define(local: Local.event, global: FITProfile.Message.event, fields: [
            .init(number: FITProfile.Common.timestamp, type: .uint32),
            .init(number: 0, type: .enumeration),   // event
            .init(number: 1, type: .enumeration),   // event_type
            .init(number: 3, type: .uint32),        // data (timer_trigger)
            .init(number: 4, type: .uint8),         // event_group
        ])
        fit.define(local: Local.record, global: FITProfile.Message.record, fields: [
            .init(number: FITProfile.Common.timestamp, type: .uint32),
            .init(number: 0, type: .sint32),        // position_lat
            .init(number: 1, type: .sint32),        // position_long
            .init(number: 2, type: .uint16),        // altitude, scale 5, offset 500
            .init(number: 78, type: .uint32),       // enhanced_altitude, scale 5, offset 500
            .init(number: 5, type: .uint32),        // distance, scale 100
            .init(number: 6, type: .uint16),        // speed, scale 1000
            .init(number: 4, type: .uint8),         // cadence, rpm
            .init(number: 53, type: .uint8),        // fractional_cadence, scale 128
            .init(number: 3, type: .uint8),         // heart_rate, bpm
        ])
        fit.define(local: Local.hrv, global: FITProfile.Message.hrv, fields: [
            .init(number: 0, type: .uint16, count: UInt8(rrPerMessage)),  // time, scale 1000 (s)
        ])
    }

    /// The definitions of the summary messages, written after the track: laps, the session (with
    /// where its elevation came from, `FITElevationSource`, when a terrain model gave any), the activity.
    private static func defineSummaryMessages(into fit: inout FITEncoder, elevationSource: Bool) {
        defineLap(into: &fit)
        fit.define(local: Local.session, global: FITProfile.Message.session, fields: [
            .init(number: FITProfile.Common.messageIndex, type: .uint16),
            .init(number: FITProfile.Common.timestamp, type: .uint32),
            .init(number: 0, type: .enumeration),   // event
            .init(number: 1, type: .enumeration),   // event_type
            .init(number: 2, type: .uint32),        // start_time
            .init(number: 3, type: .sint32),        // start_position_lat
            .init(number: 4, type: .sint32),        // start_position_long
            .init(number: 5, type: .enumeration),   // sport
            .init(number: 6, type: .enumeration),   // sub_sport
            .init(number: 7, type: .uint32),        // total_elapsed_time, scale 1000
            .init(number: 8, type: .uint32),        // total_timer_time, scale 1000
            .init(number: 9, type: .uint32),        // total_distance, scale 100
            .init(number: 10, type: .uint32),       // total_cycles (strides)
            .init(number: 11, type: .uint16),       // total_calories
            .init(number: 14, type: .uint16),       // avg_speed, scale 1000
            .init(number: 15, type: .uint16),       // max_speed, scale 1000
            .init(number: 18, type: .uint8),        // avg_cadence
            .init(number: 22, type: .uint16),       // total_ascent
            .init(number: 23, type: .uint16),       // total_descent
            .init(number: 25, type: .uint16),       // first_lap_index
            .init(number: 26, type: .uint16),       // num_laps
            .init(number: 28, type: .enumeration),  // trigger
            .init(number: 16, type: .uint8),        // avg_heart_rate
            .init(number: 17, type: .uint8),        // max_heart_rate
        ], developerFields: elevationSource ? FITElevationSource.sessionFields : [])
        fit.define(local: Local.activity, global: FITProfile.Message.activity, fields: [
            .init(number: FITProfile.Common.timestamp, type: .uint32),
            .init(number: 0, type: .uint32),        // total_timer_time, scale 1000
            .init(number: 1, type: .uint16),        // num_sessions
            .init(number: 2, type: .enumeration),   // type
            .init(number: 3, type: .enumeration),   // event
            .init(number: 4, type: .enumeration),   // event_type
        ])
    }

    /// The lap message's definition: each lap's figures, its intensity and trigger,
    /// and in a workout the step it ran (`wkt_step_index`).
    private static func defineLap(into fit: inout FITEncoder) {
        fit.define(local: Local.lap, global: FITProfile.Message.lap, fields: [
            .init(number: FITProfile.Common.messageIndex, type: .uint16),
            .init(number: FITProfile.Common.timestamp, type: .uint32),
            .init(number: 0, type: .enumeration),   // event
            .init(number: 1, type: .enumeration),   // event_type
            .init(number: 2, type: .uint32),        // start_time
            .init(number: 3, type: .sint32),        // start_position_lat
            .init(number: 4, type: .sint32),        // start_position_long
            .init(number: 5, type: .sint32),        // end_position_lat
            .init(number: 6, type: .sint32),        // end_position_long
            .init(number: 7, type: .uint32),        // total_elapsed_time, scale 1000
            .init(number: 8, type: .uint32),        // total_timer_time, scale 1000
            .init(number: 9, type: .uint32),        // total_distance, scale 100
            .init(number: 10, type: .uint32),       // total_cycles (strides)
            .init(number: 11, type: .uint16),       // total_calories
            .init(number: 13, type: .uint16),       // avg_speed, scale 1000
            .init(number: 14, type: .uint16),       // max_speed, scale 1000
            .init(number: 17, type: .uint8),        // avg_cadence
            .init(number: 23, type: .enumeration),  // intensity
            .init(number: 24, type: .enumeration),  // lap_trigger
            .init(number: 25, type: .enumeration),  // sport
            .init(number: 15, type: .uint8),        // avg_heart_rate
            .init(number: 16, type: .uint8),        // max_heart_rate
            .init(number: 71, type: .uint16),       // wkt_step_index (invalid outside a workout)
        ])
    }

    // MARK: Messages

    private struct TimerEvent {
        var time: Double
        var type: UInt8
        var trigger: UInt32
    }

    /// Timer start at the start, stop/start around each pause inside the
    /// session, stop at the end.
    private static func timerEvents(_ session: ExportSession) -> [TimerEvent] {
        var events = [TimerEvent(time: session.startTime, type: FITProfile.EventType.start,
                                 trigger: FITProfile.TimerTrigger.manual)]
        for pause in session.pauses.sorted(by: { $0.start < $1.start }) where pause.start.isFinite {
            guard pause.start >= session.startTime, pause.start < session.endTime else { continue }
            let trigger = pause.automatic ? FITProfile.TimerTrigger.auto : FITProfile.TimerTrigger.manual
            events.append(TimerEvent(time: pause.start, type: FITProfile.EventType.stopAll, trigger: trigger))
            if pause.end.isFinite && pause.end < session.endTime {
                events.append(TimerEvent(time: pause.end, type: FITProfile.EventType.start, trigger: trigger))
            }
        }
        if events.last?.type != FITProfile.EventType.stopAll {
            events.append(TimerEvent(time: session.endTime, type: FITProfile.EventType.stopAll,
                                     trigger: FITProfile.TimerTrigger.manual))
        }
        return events
    }

    private static func writeTimer(_ e: TimerEvent, into fit: inout FITEncoder) {
        fit.begin(local: Local.event)
        fit.uint32(FITProfile.timestamp(e.time))
        fit.enumeration(FITProfile.Event.timer)
        fit.enumeration(e.type)
        fit.uint32(e.trigger)
        fit.uint8(0)
    }

    private static func writeRecord(_ p: TrackPoint, distance: Double, cadence: Double, hasCadence: Bool,
                                    into fit: inout FITEncoder) {
        fit.begin(local: Local.record)
        fit.uint32(FITProfile.timestamp(p.time))
        fit.sint32(FITProfile.semicircles(p.latitude))
        fit.sint32(FITProfile.semicircles(p.longitude))
        fit.uint16(FITProfile.scaled16(p.altitude, 5, offset: 500))
        fit.uint32(FITProfile.scaled32(p.altitude, 5, offset: 500))
        fit.uint32(FITProfile.scaled32(distance, 100))
        fit.uint16(FITProfile.scaled16(max(0, p.speed), 1000))
        if hasCadence {
            let perFoot = min(254.99, max(0, cadence.isFinite ? cadence / 2 : 0))
            let whole = perFoot.rounded(.down)
            fit.uint8(UInt8(whole))
            fit.uint8(UInt8(min(127, ((perFoot - whole) * 128).rounded())))
        } else {
            fit.uint8(FITEncoder.invalidUInt8)
            fit.uint8(FITEncoder.invalidUInt8)
        }
        fit.uint8(ExportTrack.heartRate(p).map { UInt8($0) } ?? FITEncoder.invalidUInt8)
    }

    private static func writeHRV(_ rr: ArraySlice<RRInterval>, into fit: inout FITEncoder) {
        fit.begin(local: Local.hrv)
        for k in 0..<rrPerMessage {
            let i = rr.startIndex + k
            fit.uint16(i < rr.endIndex ? FITProfile.scaled16(rr[i].milliseconds / 1000, 1000) : FITEncoder.invalidUInt16)
        }
    }

    /// Average and maximum heart rate of a window as FIT writes them (invalid without one).
    private static func heartRate(_ session: ExportSession, from: Double, to: Double) -> (UInt8, UInt8) {
        guard session.hasHeartRate else { return (FITEncoder.invalidUInt8, FITEncoder.invalidUInt8) }
        let s = session.heartRateSummary(from: from, to: to)
        return (ExportTrack.wholeBPM(s.averageBPM).map { UInt8($0) } ?? FITEncoder.invalidUInt8,
                ExportTrack.wholeBPM(s.maxBPM).map { UInt8($0) } ?? FITEncoder.invalidUInt8)
    }

    private static func writeLap(_ lap: LapSummary, index: Int, session: ExportSession, paused: PausedTime,
                                 into fit: inout FITEncoder) {
        let points = session.points[lap.points]
        let kcal = session.calories(of: lap)
        fit.begin(local: Local.lap)
        fit.uint16(UInt16(clamping: index))
        fit.uint32(FITProfile.timestamp(lap.endTime))
        fit.enumeration(FITProfile.Event.lap)
        fit.enumeration(FITProfile.EventType.stop)
        fit.uint32(FITProfile.timestamp(lap.startTime))
        fit.sint32(FITProfile.semicircles(points.first?.latitude ?? .nan))
        fit.sint32(FITProfile.semicircles(points.first?.longitude ?? .nan))
        fit.sint32(FITProfile.semicircles(points.last?.latitude ?? .nan))
        fit.sint32(FITProfile.semicircles(points.last?.longitude ?? .nan))
        fit.uint32(FITProfile.scaled32(lap.elapsed, 1000))
        fit.uint32(FITProfile.scaled32(lap.moving, 1000))
        fit.uint32(FITProfile.scaled32(lap.distance, 100))
        fit.uint32(UInt32(clamping: lap.steps / 2))
        fit.uint16(FITProfile.scaled16(kcal, 1))
        fit.uint16(FITProfile.scaled16(lap.averageSpeed, 1000))
        fit.uint16(FITProfile.scaled16(lap.maxSpeed, 1000))
        fit.uint8(UInt8(clamping: ExportTrack.strideCadence(lap.averageCadence)))
        fit.enumeration(lap.step.map { FITWorkoutWriter.intensity($0.intensity) } ?? FITProfile.Intensity.active)
        fit.enumeration(lapTrigger(lap))
        fit.enumeration(session.activity.profile.sport.fitSport)
        let (average, maximum) = heartRate(session, from: lap.startTime, to: lap.endTime)
        fit.uint8(average)
        fit.uint8(maximum)
        fit.uint16(lap.step.map { UInt16(clamping: $0.wktStepIndex) } ?? FITEncoder.invalidUInt16)
    }

    /// FIT's `lap_trigger`: a workout step's end by its time or distance, else the wearer or the session's end.
    private static func lapTrigger(_ lap: LapSummary) -> UInt8 {
        switch lap.trigger {
        case .manual: FITProfile.LapTrigger.manual
        case .sessionEnd: FITProfile.LapTrigger.sessionEnd
        case .workoutStep:
            switch lap.step?.end {
            case .time: FITProfile.LapTrigger.time
            case .distance: FITProfile.LapTrigger.distance
            default: FITProfile.LapTrigger.manual
            }
        }
    }

    private static func writeSession(_ session: ExportSession, elevationSource: Bool, into fit: inout FITEncoder) {
        let moving = session.moving, distance = session.distance
        let maxSpeed = max(session.stats.maxSpeed, session.laps.map(\.maxSpeed).max() ?? 0)
        let steps = session.totalSteps
        fit.begin(local: Local.session)
        fit.uint16(0)
        fit.uint32(FITProfile.timestamp(session.endTime))
        fit.enumeration(FITProfile.Event.session)
        fit.enumeration(FITProfile.EventType.stop)
        fit.uint32(FITProfile.timestamp(session.startTime))
        fit.sint32(FITProfile.semicircles(session.points.first?.latitude ?? .nan))
        fit.sint32(FITProfile.semicircles(session.points.first?.longitude ?? .nan))
        fit.enumeration(session.activity.profile.sport.fitSport)
        fit.enumeration(session.activity.profile.sport.fitSubSport)
        fit.uint32(FITProfile.scaled32(session.elapsed, 1000))
        fit.uint32(FITProfile.scaled32(moving, 1000))
        fit.uint32(FITProfile.scaled32(distance, 100))
        fit.uint32(UInt32(clamping: steps / 2))
        fit.uint16(FITProfile.scaled16(session.calories, 1))
        fit.uint16(FITProfile.scaled16(moving > 0 ? distance / moving : 0, 1000))
        fit.uint16(FITProfile.scaled16(maxSpeed, 1000))
        fit.uint8(UInt8(clamping: ExportTrack.strideCadence(moving > 0 ? Double(steps) / moving * 60 : 0)))
        fit.uint16(FITProfile.scaled16(session.stats.elevationGain, 1))
        fit.uint16(FITProfile.scaled16(session.stats.elevationLoss, 1))
        fit.uint16(0)
        fit.uint16(UInt16(clamping: session.laps.count))
        fit.enumeration(FITProfile.SessionTrigger.activityEnd)
        let (average, maximum) = heartRate(session, from: session.startTime, to: session.endTime)
        fit.uint8(average)
        fit.uint8(maximum)
        if elevationSource { FITElevationSource.writeSessionValues(session, into: &fit) }
    }

    private static func writeActivity(_ session: ExportSession, into fit: inout FITEncoder) {
        fit.begin(local: Local.activity)
        fit.uint32(FITProfile.timestamp(session.endTime))
        fit.uint32(FITProfile.scaled32(session.moving, 1000))
        fit.uint16(1)
        fit.enumeration(FITProfile.ActivityType.manual)
        fit.enumeration(FITProfile.Event.activity)
        fit.enumeration(FITProfile.EventType.stop)
    }
}
