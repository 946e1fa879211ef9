import FoundationEssentials
import MoonRunnerCore

/// Garmin Training Center Database v2 (TCX): one Activity, one Lap per lap
/// of the session, one Track per moving stretch inside a lap.
///
/// * `Sport` is the activity's (`SportNames`: Running, Biking or Other; the schema has no walking).
/// * Lap: `TotalTimeSeconds` is moving time, as Garmin devices write it;
///   `Calories` the ACSM estimate; `TriggerMethod` Manual, also for the
///   session end (the schema has no word for it); the ActivityExtension v2
///   `LX` block (`AvgSpeed`, `AvgRunCadence`, `MaxRunCadence`, `Steps`).
/// * Heart rate: `HeartRateBpm` on the trackpoints that have one, the lap's
///   average and maximum over its moving time.
/// * Cadence is per foot (strides/min, half the step rate), the unit of
///   Garmin's `RunCadence`; `Steps` counts both feet.
public enum TCXWriter {
    public static func write(_ session: ExportSession) -> Data {
        let track = ExportTrack(session)
        var out = OutputBuffer(capacity: 2048 + session.points.count * 420)
        out.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" \
            xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 \
            http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd \
            http://www.garmin.com/xmlschemas/ActivityExtension/v2 \
            http://www.garmin.com/xmlschemas/ActivityExtensionv2.xsd">
             <Activities>
              <Activity Sport="
            """)
        out.write(text: session.activity.profile.sport.tcx)
        out.write("\">\n   <Id>")
        out.write(isoTime: session.startTime)
        out.write("</Id>\n")
        for lap in session.laps {
            writeLap(lap, session: session, track: track, into: &out)
        }
        if let note = session.note {
            // Activity_t: Id, Lap+, Notes?, Training?, Creator?.
            out.write("   <Notes>")
            out.write(xmlEscaped: note)
            out.write("</Notes>\n")
        }
        out.write("""
               <Creator xsi:type="Device_t">
                <Name>MoonRunner</Name>
                <UnitId>0</UnitId>
                <ProductID>0</ProductID>
                <Version><VersionMajor>1</VersionMajor><VersionMinor>0</VersionMinor></Version>
               </Creator>
              </Activity>
             </Activities>
            </TrainingCenterDatabase>

            """)
        return out.data
    }

    /// One `<Lap>`: its totals, a `<Track>` per moving stretch in it, and its `LX` extension.
    private static func writeLap(_ lap: LapSummary, session: ExportSession, track: ExportTrack,
                                 into out: inout OutputBuffer) {
        writeLapTotals(lap, session: session, track: track, into: &out)
        var open = false
        for i in lap.points {
            if !open || track.distance.startsStretch(i) {
                if open { out.write("    </Track>\n") }
                out.write("    <Track>\n")
                open = true
            }
            writeTrackpoint(session.points[i], at: i, track: track, into: &out)
        }
        if open { out.write("    </Track>\n") }
        writeLapExtension(lap, track: track, into: &out)
    }

    /// The lap's start and figures, in ActivityLap_t's order, up to `TriggerMethod`.
    private static func writeLapTotals(_ lap: LapSummary, session: ExportSession, track: ExportTrack,
                                       into out: inout OutputBuffer) {
        let kcal = session.calories(of: lap)
        let hr = session.hasHeartRate ? session.heartRateSummary(from: lap.startTime, to: lap.endTime) : nil
        out.write("   <Lap StartTime=\"")
        out.write(isoTime: lap.startTime)
        out.write("\">\n    <TotalTimeSeconds>")
        out.write(lap.moving, decimals: 1)
        out.write("</TotalTimeSeconds>\n    <DistanceMeters>")
        out.write(lap.distance, decimals: 2)
        out.write("</DistanceMeters>\n    <MaximumSpeed>")
        out.write(lap.maxSpeed, decimals: 3)
        out.write("</MaximumSpeed>\n    <Calories>")
        out.write(int: min(65_535, Int(kcal.rounded())))
        out.write("</Calories>\n")
        if let average = ExportTrack.wholeBPM(hr?.averageBPM), let maximum = ExportTrack.wholeBPM(hr?.maxBPM) {
            // ActivityLap_t: ... Calories, AverageHeartRateBpm?, MaximumHeartRateBpm?, Intensity ...
            out.write("    <AverageHeartRateBpm><Value>")
            out.write(int: average)
            out.write("</Value></AverageHeartRateBpm>\n    <MaximumHeartRateBpm><Value>")
            out.write(int: maximum)
            out.write("</Value></MaximumHeartRateBpm>\n")
        }
        // TCX has two intensities: a workout's rest and recovery are Resting.
        if lap.step?.intensity.isBreak == true {
            out.write("    <Intensity>Resting</Intensity>\n")
        } else {
            out.write("    <Intensity>Active</Intensity>\n")
        }
        if track.hasCadence {
            out.write("    <Cadence>")
            out.write(int: ExportTrack.strideCadence(lap.averageCadence))
            out.write("</Cadence>\n")
        }
        out.write("    <TriggerMethod>")
        out.write(text: triggerMethod(lap))
        out.write("</TriggerMethod>\n")
    }

    /// ActivityLap_t's TriggerMethod: a workout step ended by its time or distance, else Manual.
    private static func triggerMethod(_ lap: LapSummary) -> String {
        guard lap.trigger == .workoutStep else { return "Manual" }
        switch lap.step?.end {
        case .time: return "Time"
        case .distance: return "Distance"
        default: return "Manual"
        }
    }

    /// Point `i` of the track as a `<Trackpoint>`.
    private static func writeTrackpoint(_ p: TrackPoint, at i: Int, track: ExportTrack, into out: inout OutputBuffer) {
        out.write("     <Trackpoint><Time>")
        out.write(isoTime: p.time)
        out.write("</Time><Position><LatitudeDegrees>")
        out.write(p.latitude, decimals: 7)
        out.write("</LatitudeDegrees><LongitudeDegrees>")
        out.write(p.longitude, decimals: 7)
        out.write("</LongitudeDegrees></Position>")
        if p.altitude.isFinite {
            out.write("<AltitudeMeters>")
            out.write(p.altitude, decimals: 1)
            out.write("</AltitudeMeters>")
        }
        out.write("<DistanceMeters>")
        out.write(track.distance.cumulative[i], decimals: 2)
        out.write("</DistanceMeters>")
        if let bpm = ExportTrack.heartRate(p) {
            out.write("<HeartRateBpm><Value>")
            out.write(int: bpm)
            out.write("</Value></HeartRateBpm>")
        }
        let cadence = ExportTrack.strideCadence(track.cadence[i])
        if track.hasCadence {
            out.write("<Cadence>")
            out.write(int: cadence)
            out.write("</Cadence>")
        }
        if p.speed.isFinite || track.hasCadence {
            out.write("<Extensions><ns3:TPX>")
            if p.speed.isFinite {
                out.write("<ns3:Speed>")
                out.write(max(0, p.speed), decimals: 3)
                out.write("</ns3:Speed>")
            }
            if track.hasCadence {
                out.write("<ns3:RunCadence>")
                out.write(int: cadence)
                out.write("</ns3:RunCadence>")
            }
            out.write("</ns3:TPX></Extensions>")
        }
        out.write("</Trackpoint>\n")
    }

    /// The lap's ActivityExtension `LX`: average speed, run cadences and steps; then the lap closes.
    private static func writeLapExtension(_ lap: LapSummary, track: ExportTrack, into out: inout OutputBuffer) {
        var maxCadence = 0.0
        for i in lap.points { maxCadence = max(maxCadence, track.cadence[i]) }
        out.write("    <Extensions><ns3:LX><ns3:AvgSpeed>")
        out.write(lap.averageSpeed, decimals: 3)
        out.write("</ns3:AvgSpeed>")
        if track.hasCadence {
            out.write("<ns3:AvgRunCadence>")
            out.write(int: ExportTrack.strideCadence(lap.averageCadence))
            out.write("</ns3:AvgRunCadence><ns3:MaxRunCadence>")
            out.write(int: ExportTrack.strideCadence(maxCadence))
            out.write("</ns3:MaxRunCadence>")
        }
        out.write("<ns3:Steps>")
        out.write(int: min(65_535, lap.steps))
        out.write("</ns3:Steps></ns3:LX></Extensions>\n   </Lap>\n")
    }
}
