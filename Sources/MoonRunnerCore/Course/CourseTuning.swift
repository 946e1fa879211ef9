/// The course matcher's settings by name (`analyze --course-option
/// KEY=VALUE`, the course scenarios' sweep), so that an evaluation can vary
/// them without rebuilding.
public enum CourseTuning {
    public struct Invalid: Error {}

    private static let setters: [String: @Sendable (inout CourseMatcherConfig, Double) -> Void] = [
        "off_course_m": { $0.offCourseDistance = $1 },
        "margin_sigmas": { $0.marginSigmas = $1 },
        "min_margin_m": { $0.minimumMargin = $1 },
        "on_margin_sigmas": { $0.onMarginSigmas = $1 },
        "indistinct_sigmas": { $0.indistinctSigmas = $1 },
        "off_dwell_s": { $0.offDwell = $1 },
        "off_fixes": { $0.offFixes = Int($1) },
        "on_dwell_s": { $0.onDwell = $1 },
        "on_fixes": { $0.onFixes = Int($1) },
        "max_heading_deg": { $0.maxHeadingDifference = $1 },
        "heading_speed_mps": { $0.headingSpeed = $1 },
        "min_slack_m": { $0.minimumSlack = $1 },
        "finish_m": { $0.finishDistance = $1 },
    ]

    public static var keys: [String] { setters.keys.sorted() }

    public static func apply(_ option: String, to config: CourseMatcherConfig) throws -> CourseMatcherConfig {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let set = setters[parts[0]], let value = Double(parts[1]), value.isFinite, value >= 0 else {
            throw Invalid()
        }
        var c = config
        set(&c, value)
        return c
    }
}
