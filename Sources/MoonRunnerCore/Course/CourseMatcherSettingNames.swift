extension CourseMatcherConfig {
    /// The matcher's settings by name, for the evaluations that vary them
    /// without rebuilding (`moonrunner analyze --course-option KEY=VALUE`, the
    /// course scenarios' sweep). A count is the number rounded down.
    public static let settingsByName: [String: @Sendable (inout CourseMatcherConfig, Double) -> Void] = [
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
}
