import MoonRunnerConfig
import MoonRunnerCore
import Testing

@Suite("Tuning settings by name")
struct NamedSettingsTests {
    static let course = NamedSettings(CourseMatcherConfig.settingsByName)
    static let steps = NamedSettings(fields: AdaptiveStepDetector.Parameters.fields)

    @Test("KEY=VALUE sets that one setting and leaves the others at their defaults")
    func keyValue() throws {
        let c = try Self.course.apply("off_course_m=42", to: CourseMatcherConfig())
        #expect(c.offCourseDistance == 42)
        #expect(c.marginSigmas == CourseMatcherConfig().marginSigmas)
    }

    @Test("a count takes the number rounded down")
    func count() throws {
        #expect(try Self.course.apply("off_fixes=3.7", to: CourseMatcherConfig()).offFixes == 3)
    }

    @Test("an unknown name, a missing '=', a word, a negative or an infinite value is refused, naming what is wrong")
    func refusals() {
        let base = CourseMatcherConfig()
        #expect(throws: NamedSettings<CourseMatcherConfig>.Invalid.unknownName("off_corse_m")) {
            try Self.course.apply("off_corse_m=42", to: base)
        }
        #expect(throws: NamedSettings<CourseMatcherConfig>.Invalid.notKeyValue("off_course_m")) {
            try Self.course.apply("off_course_m", to: base)
        }
        #expect(throws: NamedSettings<CourseMatcherConfig>.Invalid.badValue(name: "off_course_m", value: "far")) {
            try Self.course.apply("off_course_m=far", to: base)
        }
        #expect(throws: NamedSettings<CourseMatcherConfig>.Invalid.badValue(name: "off_course_m", value: "-1")) {
            try Self.course.apply("off_course_m=-1", to: base)
        }
        #expect(throws: NamedSettings<CourseMatcherConfig>.Invalid.badValue(name: "off_course_m", value: "inf")) {
            try Self.course.apply("off_course_m=inf", to: base)
        }
    }

    @Test("the keys are every name, sorted, as the help lists them")
    func keys() {
        #expect(Self.course.keys == CourseMatcherConfig.settingsByName.keys.sorted())
        #expect(Self.course.keys.first == "finish_m")
    }

    @Test("a JSON object of step detector parameters applies as KEY=VALUE does; an unknown name is refused; every name reads back")
    func stepParameters() throws {
        let p = try Self.steps.apply(["minSwing": 0.2, "startScore": 0.5], to: AdaptiveStepDetector.Parameters())
        #expect(p.minSwing == 0.2 && p.startScore == 0.5)
        #expect(p.boutGap == AdaptiveStepDetector.Parameters().boutGap)
        #expect(throws: NamedSettings<AdaptiveStepDetector.Parameters>.Invalid.unknownName("minSwng")) {
            try Self.steps.apply(["minSwng": 0.2], to: AdaptiveStepDetector.Parameters())
        }
        let values = AdaptiveStepDetector.Parameters().values
        #expect(values.count == AdaptiveStepDetector.Parameters.fields.count)
        #expect(try Self.steps.apply(values, to: AdaptiveStepDetector.Parameters()) == AdaptiveStepDetector.Parameters())
    }
}
