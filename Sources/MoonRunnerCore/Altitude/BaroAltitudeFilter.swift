/// Why a barometer reading was not used.
public enum BaroRejection: String, Sendable, CaseIterable {
    /// Outside 30–110 kPa, or not a number.
    case implausible
    /// Not later than the reading before it.
    case outOfOrder = "out_of_order"
    /// The same value bit for bit for longer than a live sensor can give it.
    case frozen
}

/// The barometer's altitude shape: readings in, a smooth altitude out that
/// moves only when the wearer does.
///
/// * Impossible, out-of-order and frozen readings are refused.
/// * Readings are averaged per block (a second), and the shape is the median
///   of the last few blocks: white noise averages away and a pressure
///   transient (a gust, a door) shorter than half the median never shows.
/// * A jump faster than anyone moves vertically is a disturbance of the
///   sensor (a sealed case opened, a 500 Pa step): it is absorbed as a level
///   shift, so the shape carries on where it was and no climb is counted.
/// * Climbs count on a second running median of the shape (`climbShape`):
///   a 3–4 s gust that the first lets through does not pass both.
/// O(1) state, two fixed rings of block values, no allocation per reading.
struct BaroAltitudeFilter: Sendable {
    /// Pressure altitude of the shape, level shifts removed; NaN before the first block.
    private(set) var shape = Double.nan
    /// The shape without its transients, what climbs count on; NaN before the first block.
    private(set) var climbShape = Double.nan
    /// Time of the last block that moved the shape.
    private(set) var shapeTime = -Double.infinity
    /// Time of the last accepted reading.
    private(set) var lastAccepted = -Double.infinity
    /// Jumps absorbed as level shifts.
    private(set) var levelShifts = 0

    private var lastTime = -Double.infinity
    private var lastPressure = Double.nan
    private var lastTemperature = Double.nan
    private var repeatSince = Double.nan
    private var blockStart = Double.nan
    private var blockSum = 0.0
    private var blockCount = 0
    /// Sum of the absorbed jumps, metres (subtracted from the raw median).
    private var shift = 0.0
    private var ring: MedianRing
    private var shapes: MedianRing

    init(config: AltitudeFusionConfig) {
        ring = MedianRing(capacity: max(1, config.baroMedianBlocks))
        shapes = MedianRing(capacity: max(1, config.baroClimbMedianBlocks))
    }

    /// True while the barometer has given an accepted reading recently.
    func isFresh(at t: Double, config: AltitudeFusionConfig) -> Bool {
        shape.isFinite && t - lastAccepted <= config.baroStaleAfter
    }

    /// Feeds one reading; nil when accepted, else why not.
    mutating func ingest(_ s: BaroSample, config: AltitudeFusionConfig) -> BaroRejection? {
        guard s.isPlausible else { return .implausible }
        guard s.t > lastTime else { return .outOfOrder }
        let same = s.pressure == lastPressure
            && (s.temperature == lastTemperature || (s.temperature.isNaN && lastTemperature.isNaN))
        if same {
            if repeatSince.isNaN { repeatSince = lastTime }
            if s.t - repeatSince >= config.frozenAfter {
                lastTime = s.t
                return .frozen
            }
        } else {
            repeatSince = .nan
        }
        lastTime = s.t
        lastPressure = s.pressure
        lastTemperature = s.temperature
        lastAccepted = s.t
        let h = BarometricAltitude.altitude(pressure: s.pressure)
        if !blockStart.isFinite {
            blockStart = s.t
        } else if s.t >= blockStart + config.baroBlock {
            closeBlock(config: config)
            // Blocks keep their grid while readings flow; a gap starts a new one.
            let next = blockStart + config.baroBlock
            blockStart = s.t < next + config.baroBlock ? next : s.t
        }
        blockSum += h
        blockCount += 1
        return nil
    }

    /// Forgets everything.
    mutating func reset(config: AltitudeFusionConfig) {
        self = BaroAltitudeFilter(config: config)
    }

    private mutating func closeBlock(config: AltitudeFusionConfig) {
        guard blockCount > 0 else { return }
        let mean = blockSum / Double(blockCount)
        let end = blockStart + config.baroBlock
        blockSum = 0
        blockCount = 0
        if end - shapeTime > config.baroStaleAfter + config.baroBlock {
            // After a gap the old blocks say nothing about now.
            ring.removeAll()
            shapes.removeAll()
        }
        defer {
            shapes.append(shape)
            climbShape = shapes.median
        }
        ring.append(mean)
        let candidate = ring.median - shift
        if shape.isFinite {
            let dt = max(end - shapeTime, config.baroBlock)
            let jump = candidate - shape
            if abs(jump) > config.maxVerticalSpeed * dt {
                shift += jump
                levelShifts += 1
                shapeTime = end
                return
            }
        }
        shape = candidate
        shapeTime = end
    }
}

/// The last `capacity` values and their median, in fixed storage.
struct MedianRing: Sendable {
    private var values: [Double]
    private var scratch: [Double]
    private var next = 0
    private(set) var count = 0

    init(capacity: Int) {
        values = [Double](repeating: 0, count: capacity)
        scratch = values
    }

    mutating func removeAll() {
        count = 0
        next = 0
    }

    mutating func append(_ x: Double) {
        values[next] = x
        next = (next + 1) % values.count
        count = min(count + 1, values.count)
    }

    /// Median of the values held (NaN when empty); an even count averages the middle two.
    var median: Double {
        mutating get {
            guard count > 0 else { return .nan }
            // Insertion sort of at most a handful of values, in place.
            for i in 0..<count {
                let x = values[i]
                var j = i
                while j > 0 && scratch[j - 1] > x {
                    scratch[j] = scratch[j - 1]
                    j -= 1
                }
                scratch[j] = x
            }
            let mid = count / 2
            return count % 2 == 1 ? scratch[mid] : 0.5 * (scratch[mid - 1] + scratch[mid])
        }
    }
}
