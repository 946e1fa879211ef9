/// What the battery monitor is told to watch for (`battery.*` in the configuration).
public struct BatteryPolicy: Sendable, Equatable {
    /// Charges (percent) at which the wearer is told once on the way down.
    public var warnLevels: [Double] = [20, 10]
    /// Where the session is stopped and saved.
    public var critical = BatteryCriticalLevel.percent(5)
    /// Seconds the critical level must hold before it counts: a load spike
    /// sags the voltage for a second or two, a gauge may glitch; a cell at its
    /// critical level stays there.
    public var confirm = 30.0
    /// Seconds of readings the discharge rate is taken over.
    public var rateWindow = 600.0
    /// The cell's capacity, Ah: counting charge needs it (an INA219's current).
    public var capacityAh = 2.0
    /// A warning is given again only after the charge rose this far (percent)
    /// above its level: a charge hovering at 20 % is told once.
    public var rearm = 5.0
    /// The fastest the charge can change, percent a second: 5 % a minute is a
    /// 500 mAh cell under 1.5 A, the smallest cell sold for a Pi under the
    /// hungriest board; a gauge that moves faster has jumped.
    public var maxRate = 5.0 / 60
    /// Percent a reading may differ from the last one whatever the time between
    /// (a MAX1704x re-estimating after a rest, a voltage estimate under a new load).
    public var jumpSlack = 3.0

    public init() {}

    /// The charge that `critical` means (a voltage placed on the LiPo curve).
    public var criticalPercent: Double {
        switch critical {
        case let .percent(p): p
        case let .volts(v): LiPoCurve.percent(volts: v, capacityAh: capacityAh)
        }
    }
}

/// The battery as the monitor sees it after its last reading.
public struct BatteryState: Sendable, Equatable {
    /// When the reading was taken, engine clock.
    public var time: Double
    /// Charge, percent (the gauge's own, or estimated); NaN when unknown.
    public var percent: Double
    public var volts: Double
    /// A, positive discharging; NaN when the gauge does not measure it.
    public var current: Double
    public var charging: Bool?
    /// Minutes until the critical level at the rate of the last minutes; nil while unknown or not draining.
    public var minutesLeft: Double?
}

/// What the monitor asks its owner to act on.
public enum BatteryAlarm: Sendable, Equatable {
    /// The charge fell to a warning level (percent; the charge it is at, in
    /// case it started below): tell the wearer.
    case low(level: Double, percent: Double)
    /// The charge has been at its critical level for `confirm` seconds: stop and save.
    case critical
}

/// The charge of the battery, how long it lasts, and when to say so.
///
/// One charge from whichever gauge is fitted (its own percentage, else
/// `ChargeEstimate`), the minutes left from the last `rateWindow` seconds
/// (`DischargeTrend`), each warning level once on the way down, the critical
/// level once it has held `confirm` seconds; a charger silences both.
/// A gauge can jump: a reading further from the last accepted one than the
/// cell can move (`maxRate`, `jumpSlack`) is held back and counted in `jumps`;
/// the next reading decides whether the level was real (the trend starts
/// over) or a glitch. A gauge that stops answering sends no reading, so a
/// failed gauge can never stop a session. Pure: time comes with the readings.
public struct BatteryMonitor: Sendable {
    public let policy: BatteryPolicy
    public private(set) var state: BatteryState?
    /// Readings held back as a jump of the gauge.
    public private(set) var jumps = 0
    /// The critical alarm was raised and the charge has not recovered since.
    public private(set) var isCritical = false

    private var estimate: ChargeEstimate
    private var trend: DischargeTrend
    private var accepted: (t: Double, percent: Double)?
    private var suspect: Double?
    /// Bit i: warning level i was given and is not re-armed.
    private var warned: UInt64 = 0
    private var criticalSince = Double.nan

    public init(policy: BatteryPolicy = BatteryPolicy()) {
        self.policy = policy
        estimate = ChargeEstimate(capacityAh: policy.capacityAh)
        trend = DischargeTrend(window: policy.rateWindow)
    }

    /// Takes one reading; what it calls for.
    public mutating func take(_ r: BatteryReading) -> [BatteryAlarm] {
        guard r.isPlausible else { return [] }
        // A percentage outside 0–100 is a gauge's misread: the voltage made the reading plausible.
        let percent = (0...100).contains(r.percent) ? r.percent : estimate.update(r)
        guard admit(percent, at: r.t) else {
            // Held back: what else it says (voltage, charger) is as doubtful.
            return []
        }
        trend.add(t: r.t, percent: percent)
        let minutes = trend.minutesLeft(from: percent, to: policy.criticalPercent, at: r.t)
        state = BatteryState(time: r.t, percent: percent, volts: r.volts, current: r.current, charging: r.charging,
                             minutesLeft: r.charging == true ? nil : minutes)
        if r.charging == true {
            criticalSince = .nan
            rearm(percent, force: true)
            return []
        }
        var alarms: [BatteryAlarm] = []
        if let level = warning(percent) { alarms.append(.low(level: level, percent: percent)) }
        if critical(percent: percent, volts: r.volts, at: r.t) { alarms.append(.critical) }
        return alarms
    }

    /// Whether `percent` can follow the last accepted charge (see the type's comment on jumps).
    private mutating func admit(_ percent: Double, at t: Double) -> Bool {
        guard percent.isFinite, let last = accepted else {
            if percent.isFinite { accepted = (t, percent) }
            return true
        }
        let allowed = policy.jumpSlack + policy.maxRate * max(0, t - last.t)
        if abs(percent - last.percent) <= allowed {
            suspect = nil
            accepted = (t, percent)
            return true
        }
        if let s = suspect, abs(percent - s) <= policy.jumpSlack {
            // Two readings agree on the new level: the cell is there.
            suspect = nil
            accepted = (t, percent)
            trend.reset()
            criticalSince = .nan
            return true
        }
        jumps += 1
        suspect = percent
        return false
    }

    /// The lowest warning level newly reached, if any (levels passed together are told once).
    private mutating func warning(_ percent: Double) -> Double? {
        rearm(percent, force: false)
        var told: Double?
        for (i, level) in policy.warnLevels.enumerated() where i < 64 && percent <= level && warned & (1 << i) == 0 {
            warned |= 1 << i
            if told.map({ level < $0 }) ?? true { told = level }
        }
        return told
    }

    /// Levels the charge has risen well above (or all, on a charger) may be told again.
    private mutating func rearm(_ percent: Double, force: Bool) {
        for (i, level) in policy.warnLevels.enumerated() where i < 64 && (force || percent > level + policy.rearm) {
            warned &= ~(1 << i)
        }
        if force || percent > policy.criticalPercent + policy.rearm { isCritical = false }
    }

    /// True once, when the critical level has held for `confirm` seconds.
    private mutating func critical(percent: Double, volts: Double, at t: Double) -> Bool {
        let below: Bool = switch policy.critical {
        case let .percent(p): percent.isFinite && percent <= p
        case let .volts(v): volts.isFinite && volts <= v
        }
        guard below else {
            criticalSince = .nan
            return false
        }
        if criticalSince.isNaN { criticalSince = t }
        guard !isCritical, t - criticalSince >= policy.confirm else { return false }
        isCritical = true
        return true
    }
}
