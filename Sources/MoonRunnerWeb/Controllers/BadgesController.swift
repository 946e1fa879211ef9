import Foundation
import Hummingbird
import MoonRunnerCore
import MoonRunnerProtocol

/// `GET /badges`: the ladder of distance badges, who earned what, the next one.
struct BadgesController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/badges", use: page)
    }

    @Sendable func page(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        let reply: BadgesReply
        do {
            reply = try await app.link.decoded(BadgesReply.self, for: DaemonRequest(command: .badges))
        } catch {
            return app.failure(error, context)
        }
        let model = BadgesPage(layout: app.layout(p[.badgesTitle], page: "badges", context), reply: reply, phrases: p,
                               units: units)
        return app.renderer.page(model, template: "badges")
    }
}

/// The badges page's template model.
struct BadgesPage {
    struct Row {
        let key: String
        let name: String
        let distance: String
        let tier: String
        let tierClass: String
        let earned: String
        let earnedSession: String?
        let best: String
        let bestSession: String?
        let needs: String?
    }

    let layout: Layout
    let p: [String: String]
    let rows: [Row]
    let next: String?

    init(layout: Layout, reply: BadgesReply, phrases p: Phrases, units: UnitSystem) {
        self.layout = layout
        self.p = p.named([.badge, .distance, .tier, .earnedBy, .best, .nextBadge])
        rows = reply.badges.map { b in
            let tier: String
            switch b.tier {
            case "gold": tier = p[.tierGold]
            case "silver": tier = p[.tierSilver]
            case "earned": tier = p[.tierEarned]
            default: tier = p[.notEarned]
            }
            var needs: [String] = []
            if b.tier != "gold", b.tier != nil {
                if b.tier == "earned", let s = b.silverSpeedMps { needs.append("\(p[.silverNeeds]) \(Formatting.pace(speed: s, units))") }
                if let g = b.goldSpeedMps { needs.append("\(p[.goldNeeds]) \(Formatting.pace(speed: g, units))") }
            }
            return Row(key: b.badge, name: p.badgeName(b.name), distance: Formatting.distance(b.distanceM, units), tier: tier,
                       tierClass: b.tier ?? "none", earned: b.earned.map { DateText.day($0.startTime) } ?? "–",
                       earnedSession: b.earned.map { String($0.session) },
                       best: b.best.map { Formatting.pace(speed: $0.avgSpeedMps, units) } ?? "–",
                       bestSession: b.best.map { String($0.session) }, needs: needs.isEmpty ? nil : needs.joined(separator: " · "))
        }
        next = reply.next.map {
            "\(p[.nextBadge]): \(p.badgeName($0.name)) · " + p.format(.toGoShort, ["distance": Formatting.distance($0.leftM, units)])
        }
    }
}
