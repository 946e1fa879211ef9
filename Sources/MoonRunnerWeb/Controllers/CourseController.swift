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

/// The course page's template model: strings already formatted.
struct CoursePage {
    struct Row {
        let distance: String
        let distanceValue: String
        let arrow: String
        let kind: String
        let text: String
        let notes: String?
        let away: String?
    }

    let layout: Layout
    let p: [String: String]
    let id: Int64
    let name: String
    let length: String
    let lengthValue: String
    let climb: String
    let points: Int
    let source: String
    let rows: [Row]
    let empty: Bool
    let csrf: String

    init(layout: Layout, course c: CourseInfo, phrases p: Phrases, units: UnitSystem, csrf: String) {
        self.layout = layout
        self.p = Dictionary(uniqueKeysWithValues: [Phrase.length, .climb, .coursePoints, .follow, .cues, .noCues]
            .map { ($0.rawValue, p[$0]) })
        id = c.id
        name = c.name
        length = Formatting.distance(c.lengthM, units)
        lengthValue = FigureText.numberText(c.lengthM)
        climb = FigureText.climb(c.climbM, units)
        points = c.points
        let cues = c.cues ?? []
        source = cues.isEmpty ? "" : cues.allSatisfy(\.found) ? p[.cuesFound] : p[.cuesFromFile]
        rows = cues.map { q in
            Row(distance: Formatting.distance(q.courseM, units), distanceValue: FigureText.numberText(q.courseM),
                arrow: CueText.arrow(q.kind), kind: q.kind.rawValue,
                text: CueText.text(q.kind, name: q.name, then: q.then, language: p.language),
                notes: q.notes.flatMap { $0.isEmpty ? nil : $0 },
                away: q.offCourse ? p.format(.cueOffCourse, ["distance": Formatting.shortDistance(q.offsetM, units)]) : nil)
        }
        empty = cues.isEmpty
        self.csrf = csrf
    }
}
