import Foundation
import Hummingbird
import MoonRunnerCore
import MoonRunnerProtocol

/// One course of the library, `GET /courses/{id}`: its figures and its cues
/// with their distances (the daemon's `?COURSE`), the list a runner reads
/// before setting off, as a directions screen lists route steps.
struct CourseController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/courses/{id}", use: show)
    }

    @Sendable func show(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        guard let id = context.parameters.get("id", as: Int64.self) else {
            return app.message(p[.notFound], p[.notFound], status: .notFound, context, back: "/courses")
        }
        let course: CourseInfo
        do {
            course = try await app.link.decoded(CourseReply.self, for: DaemonRequest(command: .course(id: id))).course
        } catch {
            return app.failure(error, context, back: "/courses")
        }
        let model = CoursePage(layout: app.layout(course.name, page: "course", context), course: course, phrases: p,
                               units: units, csrf: app.csrf(context))
        return app.renderer.page(model, template: "course", status: .ok)
    }
}

/// The course page's template model: the course's figures as the list shows
/// them, and its cues, strings already formatted.
struct CoursePage {
    /// One cue: where it lies, its arrow and words, and whether it is off the course.
    struct Cue {
        let at: String
        let atValue: String
        let arrow: String
        let kind: String
        let words: String
        let notes: String?
        let away: String?
    }

    let layout: Layout
    let p: [String: String]
    let course: CoursesPage.Row
    /// Where the cues come from; nil without cues.
    let source: String?
    let cues: [Cue]
    let csrf: String

    init(layout: Layout, course c: CourseInfo, phrases p: Phrases, units: UnitSystem, csrf: String) {
        self.layout = layout
        self.p = p.named([.length, .climb, .coursePoints, .follow, .cues, .noCues])
        course = CoursesPage.Row(c, units: units)
        let list = c.cues ?? []
        source = list.isEmpty ? nil : list.allSatisfy(\.found) ? p[.cuesFound] : p[.cuesFromFile]
        cues = list.map { q in
            Cue(at: Formatting.distance(q.courseM, units), atValue: FigureText.numberText(q.courseM),
                arrow: CueText.arrow(q.kind), kind: q.kind.rawValue,
                words: CueText.text(q.kind, name: q.name, then: q.then, language: p.language),
                notes: q.notes.flatMap { $0.isEmpty ? nil : $0 },
                away: q.offCourse ? p.format(.cueOffCourse, ["distance": Formatting.shortDistance(q.offsetM, units)]) : nil)
        }
        self.csrf = csrf
    }
}
