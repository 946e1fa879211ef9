import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore
import MoonRunnerProtocol
import NIOCore
import ServiceLifecycle

/// The run screen: `GET /` (the page), `GET /live` (its updates, Server-Sent
/// Events), and the controls, each a POST that asks the daemon and goes back
/// to the page: `POST /session/{start,pause,resume,lap,stop,quiet}`.
struct LiveController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/", use: page)
        group.get("/live", use: live)
        // For the page's script: is this phone still paired? (204, or the gate's 401.)
        group.get("/ping") { _, _ in Response(status: .noContent, headers: [.cacheControl: "no-store"]) }
        group.post("/session/start", use: start)
        group.post("/session/pause") { try await command(.pause, $0, $1) }
        group.post("/session/resume") { try await command(.resume, $0, $1) }
        group.post("/session/lap") { try await command(.lap, $0, $1) }
        group.post("/session/stop") { try await command(.stop, $0, $1) }
        group.post("/session/quiet", use: quiet)
    }

    @Sendable func page(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        let statusLine: String, courses: [CourseInfo], workouts: [WorkoutInfo]
        do {
            let lines = try await app.link.requests([DaemonRequest(command: .status).line, DaemonRequest(command: .courses).line,
                                                     DaemonRequest(command: .workouts).line])
            statusLine = lines.first ?? ""
            courses = (lines.count > 1 ? try? WebApp.decodeCourses(lines[1]) : nil) ?? []
            // An older daemon without workouts answers an ERROR: the list is empty.
            workouts = (lines.count > 2 ? try? DaemonReply.decode(WorkoutsReply.self, lines[2]).workouts : nil) ?? []
        } catch {
            return app.failure(error, context)
        }
        guard let status = try? JSONValue.parse(statusLine), ReplyEncoder.replyClass(of: statusLine) == "STATUS" else {
            return app.failure(DaemonLinkError.garbled(String(statusLine.prefix(120))), context)
        }
        let view = LiveView(status: status, phrases: p, units: units)
        let model = LivePage(layout: app.layout(p[.liveTitle], page: "live", context), p: LivePage.Words(p), phrases: p,
                             view: view, csrf: app.csrf(context), courses: courses.map { LivePage.CourseChoice($0, units: units) },
                             workouts: workouts.map(LivePage.WorkoutChoice.init))
        return app.renderer.page(model, template: "live")
    }

    /// One SSE stream per phone: the feed's link state and last STATUS at
    /// once, then every STATUS as a `status` event (the run screen's figures,
    /// already in the phone's words) and every EVENT as an `event`. Ends when
    /// the phone leaves, the server stops or the phone is revoked.
    @Sendable func live(_ request: Request, context: WebContext) async throws -> Response {
        let p = app.phrases(context), units = await app.units(context)
        let feed = app.feed
        let subscription = await feed.subscribe(device: context.device?.id)
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // The stream ends when the phone leaves, when the server stops (so the phone sees a
            // finished stream, not a broken one, and reconnects) and when the phone is revoked.
            try await request.body.consumeWithInboundCloseHandler { _ in
                try await withGracefulShutdownHandler {
                    try await writer.write(ByteBuffer(string: EventFrame.retry(milliseconds: 2000)))
                    for await item in subscription.items {
                        try await writer.write(ByteBuffer(string: EventFrame.frame(for: item, phrases: p, units: units)))
                    }
                } onGracefulShutdown: {
                    Task { await feed.unsubscribe(subscription.id) }
                }
            } onInboundClosed: {
                Task { await feed.unsubscribe(subscription.id) }
            }
            await feed.unsubscribe(subscription.id)
            try await writer.finish(nil)
        })
    }

    @Sendable func start(_ request: Request, context: WebContext) async throws -> Response {
        let fields: [String: String]
        do {
            fields = try await app.stateChangingForm(request, context)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        let p = app.phrases(context)
        let activity = fields["activity"].flatMap { RequestParser.activities.contains($0) ? $0 : nil }
        let course = fields["course"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        let workout = fields["workout"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        var destination: GeoPoint?
        if let to = fields["to"]?.trimmingCharacters(in: .whitespaces), !to.isEmpty {
            let parts = to.replacingOccurrences(of: "，", with: ",").split(separator: ",").map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard parts.count == 2, let lat = parts[0], let lon = parts[1], abs(lat) <= 90, abs(lon) <= 180 else {
                return try app.message(p[.errorTitle], "\(p[.headFor]): \(p[.headForHint])", status: .badRequest, context,
                                       back: "/").response(from: request, context: context)
            }
            destination = GeoPoint(latitude: lat, longitude: lon)
        }
        return try await ask(.start(activity: activity, course: course, destination: destination, workout: workout), request, context)
    }

    func command(_ command: DaemonRequest.Command, _ request: Request, _ context: WebContext) async throws -> Response {
        do {
            _ = try await app.stateChangingForm(request, context)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        return try await ask(command, request, context)
    }

    @Sendable func quiet(_ request: Request, context: WebContext) async throws -> Response {
        let fields: [String: String]
        do {
            fields = try await app.stateChangingForm(request, context)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        return try await ask(.announce(quiet: fields["quiet"] == "on"), request, context)
    }

    /// Sends a state change; back to the run screen, or a page with the daemon's refusal.
    private func ask(_ command: DaemonRequest.Command, _ request: Request, _ context: WebContext) async throws -> Response {
        do {
            _ = try await app.link.decoded(StatusReply.self, for: DaemonRequest(command: command))
            return WebApp.redirect("/")
        } catch {
            return try app.failure(error, context, back: "/").response(from: request, context: context)
        }
    }
}

extension WebApp {
    static func decodeCourses(_ line: String) throws -> [CourseInfo] {
        try DaemonReply.decode(CoursesReply.self, line).courses
    }
}

/// The run screen's template model.
struct LivePage {
    struct Words {
        let start, activity, run, walk, followCourse, noCourse, headFor, headForHint, pause, resume, lap, stop,
            stopConfirm, stopReally, voiceOn, voiceOff, voiceMuted, linkLost, daemonDown, offCourse, runWorkout,
            noWorkout: String

        init(_ p: Phrases) {
            start = p[.start]; activity = p[.activity]; run = p[.run]; walk = p[.walk]
            followCourse = p[.followCourse]; noCourse = p[.noCourse]; headFor = p[.headFor]; headForHint = p[.headForHint]
            pause = p[.pause]; resume = p[.resume]; lap = p[.lap]; stop = p[.stop]; stopConfirm = p[.stopConfirm]
            stopReally = p[.stopReally]; voiceOn = p[.voiceOn]; voiceOff = p[.voiceOff]; voiceMuted = p[.voiceMuted]
            linkLost = p[.linkLost]; daemonDown = p[.daemonDown]; offCourse = p[.offCourse]
            runWorkout = p[.runWorkout]; noWorkout = p[.noWorkout]
        }
    }

    /// One activity of the start control.
    struct ActivityChoice {
        let value: String
        let name: String
        let checked: Bool
    }

    struct CourseChoice {
        let id: Int64
        let name: String
        let length: String
        init(_ c: CourseInfo, units: UnitSystem) {
            id = c.id
            name = c.name
            length = Formatting.distance(c.lengthM, units)
        }
    }

    /// One workout of the start control: its name and how many steps it runs.
    struct WorkoutChoice {
        let id: Int64
        let name: String
        let steps: Int
        init(_ w: WorkoutInfo) {
            id = w.id
            name = w.name
            steps = w.steps
        }
    }

    let layout: Layout
    let p: Words
    let view: LiveView
    let csrf: String
    let courses: [CourseChoice]
    let workouts: [WorkoutChoice]
    /// The start control's activities, the last session's checked (a run's before any).
    let activities: [ActivityChoice]
    /// Which control groups show for the state the page was rendered in.
    let show: [String: Bool]
    /// The quiet switch's next value and label.
    let quietNext: String
    let quietLabel: String

    init(layout: Layout, p: Words, phrases: Phrases, view: LiveView, csrf: String, courses: [CourseChoice],
         workouts: [WorkoutChoice] = []) {
        self.layout = layout
        self.p = p
        self.view = view
        self.csrf = csrf
        self.courses = courses
        self.workouts = workouts
        let last = Activity(rawValue: view.activity) ?? .run
        activities = Activity.allCases.map {
            ActivityChoice(value: $0.rawValue, name: phrases.activityName($0.rawValue), checked: $0 == last)
        }
        let shown = LiveView.controls(for: SessionState(rawValue: view.state))
        show = Dictionary(uniqueKeysWithValues: ["start", "pause", "resume", "lap", "stop"].map { ($0, shown.contains($0)) })
        quietNext = view.quiet ? "off" : "on"
        quietLabel = view.quiet ? p.voiceOn : p.voiceOff
    }
}
