/// Steps on foot checked against the receiver's Doppler speed.
///
/// A hiker at a rest shifts their weight, turns to look, digs in a pack, a
/// runner after a repeat stands bent over, breathing hard, or turns about: an
/// IMU on the body sees steps where the wearer goes nowhere (the zero-step
/// traces' rhythmic bursts are such steps), and steps that come back slowly
/// after a rest are picked up a stride or two late. While the filter trusts a
/// Doppler speed (`GPSProgress`), it tells the two apart: a wearer whose fixes
/// have all read less than the creeping speed for 3 s (a hiker at 0.4 m/s
/// dips below it for one fix in fifteen, never for three in a row) is standing,
/// and the steps meanwhile neither keep the session going nor resume it until
/// a fix at speed agrees. Without a trusted Doppler every step counts, as
/// before. O(1) state; times are the engine clock's.
struct StepConfirmation: Sendable {
    /// The last fix with a trusted Doppler speed, and the last one at creeping speed.
    private var lastDoppler = -Double.infinity
    private(set) var lastAtSpeed = -Double.infinity
    /// The last step the GPS did not contradict.
    private(set) var lastStep = -Double.infinity

    mutating func fix(_ progress: GPSProgress?, at t: Double) {
        guard let progress else { return }
        lastDoppler = t
        if progress.atSpeed { lastAtSpeed = t }
    }

    /// True while a trusted Doppler says the wearer stands: fixes within 2 s, none at speed for 3 s.
    func standing(at t: Double) -> Bool { t - lastDoppler <= 2 && t - lastAtSpeed > 3 }

    mutating func step(at t: Double) {
        if !standing(at: t) { lastStep = max(lastStep, t) }
    }

    /// Steps held back resumed the session once a fix at speed agreed: they
    /// count, up to `step` (else the next moment, with no step counted since
    /// the stop, would pause it again).
    mutating func resumed(through step: Double) {
        lastStep = max(lastStep, step)
    }

    /// The last step that counts at `t`. Standing is known 3 s late, so
    /// once it is, the steps after the last fix at speed (and the second to
    /// the next fix) were already the shifting of a wearer at rest.
    func lastCounted(at t: Double) -> Double {
        standing(at: t) ? min(lastStep, lastAtSpeed + 1) : lastStep
    }
}
