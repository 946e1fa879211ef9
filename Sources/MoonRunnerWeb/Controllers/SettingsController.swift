import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore

/// `GET /settings`, `POST /settings`: the phone's language and units,
/// remembered in cookies of its own (the daemon's settings are not changed).
struct SettingsController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/settings", use: page)
        group.post("/settings", use: save)
    }

    @Sendable func page(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        let model = SettingsPage(layout: app.layout(p[.settingsTitle], page: "settings", context), phrases: p,
                                 language: p.language, units: units, device: context.device, csrf: app.csrf(context),
                                 saved: request.uri.queryParameters.get("saved") != nil)
        return app.renderer.page(model, template: "settings")
    }

    @Sendable func save(_ request: Request, context: WebContext) async throws -> Response {
        let fields: [String: String]
        do {
            fields = try await app.stateChangingForm(request, context)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        var response = WebApp.redirect("/settings?saved=1")
        if let l = fields["lang"].flatMap(Language.init(tag:)) {
            response.setCookie(Self.cookie(Preferences.languageCookie, l.tag))
        }
        if let u = fields["units"].flatMap(UnitSystem.init(rawValue:)) {
            response.setCookie(Self.cookie(Preferences.unitsCookie, u.rawValue))
        }
        return response
    }

    static func cookie(_ name: String, _ value: String) -> Cookie {
        Cookie(name: name, value: value, maxAge: PairingController.cookieLifetime, path: "/", httpOnly: true, sameSite: .strict)
    }
}

/// The settings page's template model.
struct SettingsPage {
    struct Choice {
        let value: String
        let label: String
        let checked: Bool
    }

    let layout: Layout
    let p: [String: String]
    let languages: [Choice]
    let units: [Choice]
    let device: String?
    let csrf: String
    let saved: Bool

    init(layout: Layout, phrases p: Phrases, language: Language, units: UnitSystem, device: Device?, csrf: String,
         saved: Bool) {
        self.layout = layout
        self.p = p.named([.language, .units, .save, .thisPhone, .saved, .uploadsLink])
        languages = [Choice(value: Language.english.tag, label: "English", checked: language == .english),
                     Choice(value: Language.chinese.tag, label: "简体中文", checked: language == .chinese)]
        self.units = [Choice(value: "metric", label: p[.metric], checked: units == .metric),
                      Choice(value: "imperial", label: p[.imperial], checked: units == .imperial)]
        self.device = device.map { "\($0.name) · \(p[.paired]) \(DateText.day($0.pairedAt))" }
        self.csrf = csrf
        self.saved = saved
    }
}

/// A page that only says something (an error, the daemon being down).
struct MessagePage {
    let layout: Layout
    let title: String
    let text: String
    let retry: String?
    let back: String?
    let backText: String
}
