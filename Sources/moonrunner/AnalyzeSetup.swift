import ArgumentParser
import MoonRunnerConfig
import MoonRunnerCore

/// What `moonrunner analyze`'s options mean: the engine's settings and the
/// activity's profile, each option read once (`Analyze.validate()`), refused
/// with a message that names it.
struct AnalyzeSetup: Sendable {
    var config = EngineConfig()
    var profile = Activity.run.profile

    init() {}

    /// The options' meaning; throws a `ValidationError` naming the first option that cannot be used.
    init(_ options: Analyze) throws {
        config.heartRate = try Self.heartRateProfile(options)
        guard let detector = StepDetectorKind(rawValue: options.detector) else {
            throw ValidationError("--detector must be one of \(StepDetectorKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        config.detector = detector
        guard let activity = Activity(rawValue: options.activity) else {
            throw ValidationError("--activity must be one of \(Activity.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let start = options.start, let stop = options.stop, stop < start {
            throw ValidationError("--stop must not be before --start")
        }
        guard (20...300).contains(options.bodyMass) else { throw ValidationError("--body-mass must be 20 to 300 kg") }
        config.autoPause.enabled = !options.noAutoPause
        var tuned = ActivityOptions()
        for option in options.activityOptions {
            tuned = try Self.apply(option, "--activity-option", ActivityOptions.settings, to: tuned)
        }
        for option in options.courseOptions {
            config.navigation.matcher = try Self.apply(option, "--course-option", Self.courseSettings,
                                                       to: config.navigation.matcher)
        }
        for option in options.terrainOptions {
            config.altitude = try Self.apply(option, "--terrain-option", Self.terrainSettings, to: config.altitude)
        }
        profile = tuned.apply(to: activity.profile, config: &config)
    }

    static let courseSettings = NamedSettings(CourseMatcherConfig.settingsByName)
    static let terrainSettings = NamedSettings(AltitudeFusionConfig.terrainSettingsByName)

    private static func apply<Config>(_ option: String, _ name: String, _ settings: NamedSettings<Config>,
                                      to config: Config) throws -> Config {
        do {
            return try settings.apply(option, to: config)
        } catch {
            throw ValidationError("\(name) \(option): expected KEY=NUMBER with KEY one of \(settings.keys.joined(separator: ", "))")
        }
    }

    /// The wearer as the heart-rate options describe them.
    private static func heartRateProfile(_ o: Analyze) throws -> HeartRateProfile {
        var p = HeartRateProfile()
        p.bodyMass = o.bodyMass
        guard (5...110).contains(o.age) else { throw ValidationError("--age must be 5 to 110 years") }
        p.age = o.age
        guard let s = HeartRateProfile.Sex(rawValue: o.sex) else { throw ValidationError("--sex must be male, female or unspecified") }
        p.sex = s
        guard let m = HeartRateProfile.ZoneModel(rawValue: o.zoneModel) else {
            throw ValidationError("--zone-model must be max, reserve or bpm")
        }
        p.zoneModel = m
        let bounds = o.zoneBounds.split(separator: ",").compactMap { Double(String($0).trimmingSpacesAndTabs()) }
        guard bounds.count == 4, zip(bounds, bounds.dropFirst()).allSatisfy({ $0 < $1 }), bounds.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--zone-bounds must be four increasing numbers, e.g. 60,70,80,90")
        }
        p.zoneBounds = bounds
        p.maxBPM = o.maxHr
        p.restingBPM = o.restingHr
        guard p.maximum > p.restingBPM + 10 else { throw ValidationError("--max-hr must be above --resting-hr") }
        return p
    }
}

/// ArgumentParser decodes every stored property of a command; `Analyze.setup`
/// is no option and decodes to the defaults, which `validate()` replaces.
extension AnalyzeSetup: Decodable {
    init(from decoder: any Decoder) throws { self.init() }
}
