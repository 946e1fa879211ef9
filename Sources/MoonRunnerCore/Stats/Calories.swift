/// Which ACSM metabolic equation describes the movement.
public enum MetabolicEquation: String, Sendable, Codable, CaseIterable {
    /// VO2 = 0.1·v + 1.8·v·grade + 3.5 (ml/kg/min, v in m/min).
    case walking
    /// VO2 = 0.2·v + 0.9·v·grade + 3.5 (ml/kg/min, v in m/min).
    case running
}

/// How an activity's energy is estimated from its track (`ActivityProfile.calories`).
public enum CalorieEquation: Sendable, Equatable {
    /// The ACSM equations, this one preferred (run and trail run: running;
    /// walk: walking), the other where the speed says the wearer changed gait.
    case acsm(MetabolicEquation)
    /// Pandolf et al. (1977) with grade, no load, terrain factor 1.1: hiking.
    case pandolf
    /// The Compendium of Physical Activities' cycling METs by speed: riding
    /// without a power meter.
    case cyclingMET
}

/// Energy estimate from the speed and grade of each stretch of the track,
/// by the activity's equation (`CalorieEquation`).
///
/// Runs and walks: the ACSM metabolic equations (ACSM's Guidelines for
/// Exercise Testing and Prescription, "metabolic calculations"), oxygen uptake
/// from speed and grade, about 5 kcal per litre of O2; valid for walking at
/// 50–100 m/min, running above 134 (from 80 if truly running). So a run below
/// `walkingBelow` (80 m/min, 4.8 km/h) is a walk break and a walk above
/// `runningAbove` (8 km/h ≈ 134 m/min) is running. Hikes use `PandolfEquation`,
/// rides `CyclingMETs`. Downhill costs as level (grade clamped at 0 below,
/// `maxGrade` above): the walking equation would drop below resting cost.
public struct CalorieModel: Sendable, Equatable, Codable {
    /// Body mass, kg (from the configuration).
    public var bodyMass: Double
    /// m/s above which a walk is costed with the running equation (8 km/h).
    public var runningAbove: Double = 8 / 3.6
    /// m/s below which a run is costed with the walking equation (80 m/min).
    public var walkingBelow: Double = 80.0 / 60
    /// kcal released per litre of oxygen consumed.
    public var kcalPerLitreO2: Double = 5
    /// Steepest grade (fraction) the equations are trusted with.
    public var maxGrade: Double = 0.3
    /// Horizontal metres over which the grade of a track is measured, so
    /// that altitude noise between 1 Hz fixes does not turn into climbing.
    public var gradeWindow: Double = 50

    public init(bodyMass: Double = 70) {
        self.bodyMass = bodyMass
    }

    /// The ACSM equation for an activity that prefers `preferred`, at this speed (m/s).
    public func equation(preferring preferred: MetabolicEquation, speed: Double) -> MetabolicEquation {
        switch preferred {
        case .running: return speed < walkingBelow ? .walking : .running
        case .walking: return speed > runningAbove ? .running : .walking
        }
    }

    /// The ACSM equation for this activity at this speed (m/s): its preferred
    /// one (running for a ride or hike, which use other equations anyway).
    public func equation(activity: Activity, speed: Double) -> MetabolicEquation {
        guard case let .acsm(preferred) = activity.profile.calories else { return .running }
        return equation(preferring: preferred, speed: speed)
    }

    /// Gross oxygen uptake, ml/kg/min, at `speed` m/s on `grade` (fraction).
    public func vo2(speed: Double, grade: Double, equation: MetabolicEquation) -> Double {
        let v = max(0, speed.isFinite ? speed : 0) * 60
        let g = clampedGrade(grade)
        switch equation {
        case .walking: return 0.1 * v + 1.8 * v * g + 3.5
        case .running: return 0.2 * v + 0.9 * v * g + 3.5
        }
    }

    /// kcal spent moving for `seconds` at `speed` m/s on `grade`, by the activity's equation.
    public func kcal(speed: Double, grade: Double, seconds: Double, activity: Activity) -> Double {
        guard seconds > 0, bodyMass > 0 else { return 0 }
        switch activity.profile.calories {
        case let .acsm(preferred):
            let ml = vo2(speed: speed, grade: grade, equation: equation(preferring: preferred, speed: speed))
                * bodyMass * seconds / 60
            return ml / 1000 * kcalPerLitreO2
        case .pandolf:
            return PandolfEquation(bodyMass: bodyMass).kcal(speed: speed, grade: grade, seconds: seconds)
        case .cyclingMET:
            return CyclingMETs.kcal(speed: speed, grade: grade, seconds: seconds, bodyMass: bodyMass)
        }
    }

    /// The grade the walking equations are trusted with: descents as level, at most `maxGrade`.
    private func clampedGrade(_ grade: Double) -> Double { min(maxGrade, max(0, grade.isFinite ? grade : 0)) }

    /// Whole-session estimate from its totals (for a live display): average
    /// speed over moving time, grade from the climb over the distance.
    public func kcal(distance: Double, moving: Double, elevationGain: Double, activity: Activity) -> Double {
        guard moving > 0 else { return 0 }
        let grade = distance > 0 ? max(0, elevationGain) / distance : 0
        return kcal(speed: distance / moving, grade: grade, seconds: moving, activity: activity)
    }

    /// kcal over a recorded track: each stretch is cut into pieces of about
    /// `gradeWindow` metres; each piece is costed at its own speed (distance
    /// over moving time) and grade (altitude change over distance). Time
    /// outside stretches (pauses, GPS outages) costs nothing.
    public func kcal<Track: RandomAccessCollection>(points: Track, pauses: [PauseInterval], activity: Activity) -> Double
    where Track.Element == TrackPoint, Track.Index == Int {
        kcal(points: points, paused: PausedTime(pauses), activity: activity)
    }

    /// As `kcal(points:pauses:activity:)` with the pauses already indexed.
    public func kcal<Track: RandomAccessCollection>(points: Track, paused: PausedTime, activity: Activity) -> Double
    where Track.Element == TrackPoint, Track.Index == Int {
        var total = 0.0
        var pieceStart = points.startIndex
        var pieceDistance = 0.0

        func closePiece(at end: Int) {
            defer { pieceStart = end; pieceDistance = 0 }
            guard end > pieceStart else { return }
            let a = points[pieceStart], b = points[end]
            let seconds = paused.moving(from: a.time, to: b.time)
            guard seconds > 0 else { return }
            let rise = b.altitude - a.altitude
            let grade = pieceDistance >= 10 && rise.isFinite ? rise / pieceDistance : 0
            total += kcal(speed: pieceDistance / seconds, grade: grade, seconds: seconds, activity: activity)
        }

        for i in points.indices.dropFirst() {
            if points[i].newSegment {
                closePiece(at: i - 1)
                pieceStart = i
                continue
            }
            pieceDistance += TrackDistance.step(points[i - 1], points[i])
            if pieceDistance >= gradeWindow { closePiece(at: i) }
        }
        if !points.isEmpty { closePiece(at: points.endIndex - 1) }
        return total
    }
}
