import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore
import MoonRunnerProtocol
import NIOCore

/// The course library: `GET /courses`, `POST /courses` (a file from the
/// phone, sent on to the daemon as `?COURSE_ADD` and its `?COURSE_DATA`
/// pieces, within the socket's upload limit) and `POST /courses/{id}/delete`.
/// Following one is the run screen's start with `course` set.
struct CoursesController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/courses", use: list)
        group.post("/courses", use: upload)
        group.post("/courses/{id}/delete", use: delete)
    }

    @Sendable func list(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context)
        var notice: String?
        if let added = request.uri.queryParameters.get("added") {
            notice = p.format(.courseAdded, ["name": added])
        } else if request.uri.queryParameters.get("deleted") != nil {
            notice = p[.courseDeleted]
        }
        return await page(context, notice: notice, error: nil, status: .ok)
    }

    func page(_ context: WebContext, notice: String?, error: String?, status: HTTPResponse.Status) async -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        let courses: [CourseInfo]
        do {
            courses = try await app.link.decoded(CoursesReply.self, for: DaemonRequest(command: .courses)).courses
        } catch {
            return app.failure(error, context)
        }
        let model = CoursesPage(layout: app.layout(p[.coursesTitle], page: "courses", context), courses: courses,
                                phrases: p, units: units, csrf: app.csrf(context),
                                maxBytes: await app.feed.facts.maxUploadBytes, notice: notice, error: error)
        return app.renderer.page(model, template: "courses", status: status)
    }

    @Sendable func upload(_ request: Request, context: WebContext) async throws -> Response {
        let p = app.phrases(context)
        guard OriginCheck.sameOrigin(origin: request.headers[.origin], host: request.head.authority) else {
            return try app.message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, context, back: "/courses")
                .response(from: request, context: context)
        }
        let maxBytes = await app.feed.facts.maxUploadBytes
        let size = Self.sizeText(maxBytes)
        // A slow client may not hold the upload open for ever: past the deadline its connection is closed.
        let channel = context.channel, deadline = app.settings.bodyTimeout
        let timer = Task {
            try await Task.sleep(for: .seconds(deadline))
            channel?.close(promise: nil)
        }
        defer { timer.cancel() }
        let form: CourseUploadForm
        do {
            form = try await CourseUploadForm.read(request, maxFileBytes: maxBytes)
        } catch CourseUploadForm.Refusal.tooLarge {
            // Stop reading what is left of it: the answer is already known.
            context.channel?.close(mode: .input, promise: nil)
            return try await page(context, notice: nil, error: p.format(.uploadTooLarge, ["size": size]), status: .contentTooLarge)
                .response(from: request, context: context)
        } catch {
            return try await page(context, notice: nil, error: p[.brokenUpload], status: .badRequest)
                .response(from: request, context: context)
        }
        guard let device = context.device, CSRF.valid(form.csrf, for: device.id, key: app.devices.csrfKey) else {
            return try app.message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, context, back: "/courses")
                .response(from: request, context: context)
        }
        guard !form.file.isEmpty else {
            return try await page(context, notice: nil, error: p[.noFile], status: .badRequest).response(from: request, context: context)
        }
        let ext = (form.fileName as NSString).pathExtension.lowercased()
        let format = RequestParser.courseFormats.contains(ext) ? ext : nil
        let name = form.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let lines = FileUpload.lines(for: Data(form.file), kind: .course, name: name.isEmpty ? nil : String(name.prefix(200)),
                                     format: format)
        do {
            let replies = try await app.link.requests(lines, timeout: .seconds(30))
            let course = try DaemonReply.decode(CourseReply.self, replies.last ?? "").course
            let query = course.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return WebApp.redirect("/courses?added=\(query)")
        } catch let e as RequestError where e.code == .badCourse {
            return try await page(context, notice: nil, error: p.format(.notACourse, ["reason": e.message]),
                                  status: .unprocessableContent).response(from: request, context: context)
        } catch let e as RequestError where e.code == .tooLarge {
            return try await page(context, notice: nil, error: p.format(.uploadTooLarge, ["size": size]),
                                  status: .contentTooLarge).response(from: request, context: context)
        } catch {
            return try app.failure(error, context, back: "/courses").response(from: request, context: context)
        }
    }

    @Sendable func delete(_ request: Request, context: WebContext) async throws -> Response {
        do {
            _ = try await app.stateChangingForm(request, context)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        guard let id = context.parameters.get("id", as: Int64.self) else {
            return try app.message(app.phrases(context)[.notFound], app.phrases(context)[.notFound], status: .notFound, context)
                .response(from: request, context: context)
        }
        do {
            _ = try await app.link.decoded(CourseDeletedReply.self, for: DaemonRequest(command: .courseDelete(id: id)))
            return WebApp.redirect("/courses?deleted=\(id)")
        } catch {
            return try app.failure(error, context, back: "/courses").response(from: request, context: context)
        }
    }

    /// `8 MB`, `512 KB`.
    static func sizeText(_ bytes: Int) -> String {
        bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MB" : "\(bytes / 1024) KB"
    }
}

/// The courses page's template model.
struct CoursesPage {
    struct Row {
        let id: Int64
        let name: String
        let length: String
        let lengthValue: String
        let climb: String
        let points: Int
        let added: String
        let iso: String

        /// A course's figures as the list and its own page show them.
        init(_ c: CourseInfo, units: UnitSystem) {
            id = c.id
            name = c.name
            length = Formatting.distance(c.lengthM, units)
            lengthValue = FigureText.numberText(c.lengthM)
            climb = FigureText.climb(c.climbM, units)
            points = c.points
            added = DateText.readable(c.createdAt)
            iso = DateText.iso(c.createdAt)
        }
    }

    let layout: Layout
    let p: [String: String]
    let rows: [Row]
    let empty: Bool
    let csrf: String
    let maxBytes: Int
    let hint: String
    let tooLarge: String
    let notice: String?
    let error: String?

    init(layout: Layout, courses: [CourseInfo], phrases p: Phrases, units: UnitSystem, csrf: String, maxBytes: Int,
         notice: String?, error: String?) {
        self.layout = layout
        self.p = p.named([.name, .length, .climb, .added, .follow, .delete, .deleteReally,
                          .cancel, .upload, .file, .noCourses, .run, .walk, .coursePoints])
        rows = courses.map { CoursesPage.Row($0, units: units) }
        empty = courses.isEmpty
        self.csrf = csrf
        self.maxBytes = maxBytes
        hint = p.format(.uploadHint, ["size": CoursesController.sizeText(maxBytes)])
        tooLarge = p.format(.uploadTooLarge, ["size": CoursesController.sizeText(maxBytes)])
        self.notice = notice
        self.error = error
    }
}
