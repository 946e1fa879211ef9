import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore
import MoonRunnerProtocol
import NIOCore

/// The workout library: `GET /workouts`, `POST /workouts` (the text form
/// typed on the phone, or a FIT workout file, sent on in pieces as a course
/// file is: `?WORKOUT_ADD` and its `?WORKOUT_DATA` lines) and
/// `POST /workouts/{id}/delete`. Running one is the run screen's start with
/// `workout` set; a workout the daemon refuses is said with its reason.
struct WorkoutsController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/workouts", use: list)
        group.post("/workouts", use: upload)
        group.post("/workouts/{id}/delete", use: delete)
    }

    @Sendable func list(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context)
        var notice: String?
        if let added = request.uri.queryParameters.get("added") {
            notice = p.format(.workoutAdded, ["name": added])
        } else if request.uri.queryParameters.get("deleted") != nil {
            notice = p[.workoutDeleted]
        }
        return await page(context, notice: notice, error: nil, status: .ok)
    }

    func page(_ context: WebContext, notice: String?, error: String?, status: HTTPResponse.Status) async -> HTML {
        let p = app.phrases(context)
        let workouts: [WorkoutInfo]
        do {
            workouts = try await app.link.decoded(WorkoutsReply.self, for: DaemonRequest(command: .workouts)).workouts
        } catch {
            return app.failure(error, context)
        }
        let model = WorkoutsPage(layout: app.layout(p[.workoutsTitle], page: "workouts", context), workouts: workouts,
                                 phrases: p, csrf: app.csrf(context), notice: notice, error: error)
        return app.renderer.page(model, template: "workouts", status: status)
    }

    @Sendable func upload(_ request: Request, context: WebContext) async throws -> Response {
        let p = app.phrases(context)
        guard OriginCheck.sameOrigin(origin: request.headers[.origin], host: request.head.authority) else {
            return try app.message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, context, back: "/workouts")
                .response(from: request, context: context)
        }
        let form: CourseUploadForm
        do {
            form = try await CourseUploadForm.read(request, maxFileBytes: UploadKind.workoutMaxBytes)
        } catch {
            return try await page(context, notice: nil, error: p[.brokenUpload], status: .badRequest)
                .response(from: request, context: context)
        }
        guard let device = context.device, CSRF.valid(form.csrf, for: device.id, key: app.devices.csrfKey) else {
            return try app.message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, context, back: "/workouts")
                .response(from: request, context: context)
        }
        let text = form.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty || !form.file.isEmpty else {
            return try await page(context, notice: nil, error: p[.noFile], status: .badRequest).response(from: request, context: context)
        }
        let name = form.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let file = text.isEmpty ? Data(form.file) : Data(text.utf8)
        let lines = FileUpload.lines(for: file, kind: .workout, name: name.isEmpty ? nil : String(name.prefix(200)),
                                     format: text.isEmpty ? nil : "text")
        do {
            let replies = try await app.link.requests(lines, timeout: .seconds(30))
            let w = try DaemonReply.decode(WorkoutReply.self, replies.last ?? "").workout
            return WebApp.redirect("/workouts?added=\(w.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        } catch let e as RequestError where e.code == .badWorkout {
            return try await page(context, notice: nil, error: p.format(.notAWorkout, ["reason": e.message]),
                                  status: .unprocessableContent).response(from: request, context: context)
        } catch {
            return try app.failure(error, context, back: "/workouts").response(from: request, context: context)
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
            _ = try await app.link.decoded(WorkoutDeletedReply.self, for: DaemonRequest(command: .workoutDelete(id: id)))
            return WebApp.redirect("/workouts?deleted=\(id)")
        } catch {
            return try app.failure(error, context, back: "/workouts").response(from: request, context: context)
        }
    }
}

/// The workouts page's template model.
struct WorkoutsPage {
    struct Row {
        let id: Int64
        let name: String
        let steps: Int
        let text: String
        let added: String
        let iso: String
    }

    let layout: Layout
    let p: [String: String]
    let rows: [Row]
    let empty: Bool
    let csrf: String
    let notice: String?
    let error: String?

    init(layout: Layout, workouts: [WorkoutInfo], phrases p: Phrases, csrf: String, notice: String?, error: String?) {
        self.layout = layout
        self.p = p.named([.name, .steps, .start, .delete, .deleteReally, .upload, .file, .noWorkouts, .workoutText,
                          .workoutTextHint])
        rows = workouts.map {
            Row(id: $0.id, name: $0.name, steps: $0.steps, text: $0.text, added: DateText.readable($0.createdAt),
                iso: DateText.iso($0.createdAt))
        }
        empty = workouts.isEmpty
        self.csrf = csrf
        self.notice = notice
        self.error = error
    }
}
