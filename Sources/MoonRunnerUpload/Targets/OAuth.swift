import Foundation
import MoonRunnerProtocol
import MoonRunnerWeb

/// The pieces of OAuth 2.0's authorization code grant that Strava and
/// FitTrackee share: a `state` that works once, PKCE (RFC 7636, S256) where
/// the service takes it, the token answer read into the credential, and a
/// refresh ahead of expiry that keeps whatever refresh token comes back
/// (Strava may hand out a new one with any refresh; the old one then stops working).
public enum OAuth {
    /// A URL-safe random string of `bytes` random bytes (state, PKCE verifier: 32 bytes, 43 characters).
    public static func randomToken(_ bytes: Int = 32) -> String {
        base64URL(Digest.randomBytes(bytes))
    }

    /// PKCE's S256 challenge of a verifier.
    public static func challenge(_ verifier: String) -> String {
        base64URL(Digest.sha256(Array(verifier.utf8)))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Refresh this long before the access token expires, seconds (Strava's guide: within an hour of expiry).
    static let refreshAhead = 3600.0

    /// The credential with a token answer (`access_token`, `refresh_token`, `expires_at` or `expires_in`) applied.
    static func apply(_ answer: JSONValue, to credential: Credential, now: Double) -> Credential? {
        guard let access = answer["access_token"]?.text, !access.isEmpty else { return nil }
        var c = credential
        c["access_token"] = access
        if let refresh = answer["refresh_token"]?.text, !refresh.isEmpty { c["refresh_token"] = refresh }
        let expires = answer["expires_at"]?.double ?? answer["expires_in"]?.double.map { now + $0 } ?? now + 3600
        c["expires_at"] = String(Int64(expires))
        c.refused = nil
        return c
    }

    /// A valid access token, refreshed first when it expires within `refreshAhead`; the new
    /// tokens are written through the keeper before they are used.
    static func accessToken(_ attempt: UploadAttempt, http: HTTP, tokenURL: String, service: String,
                            extra: [(String, String)] = []) async throws(UploadFailure) -> String {
        let c = await attempt.keeper.credential
        let now = attempt.now()
        if let access = c["access_token"], let expires = c["expires_at"].flatMap(Double.init), expires - now > refreshAhead {
            return access
        }
        guard let refresh = c["refresh_token"], let id = c["client_id"], let secret = c["client_secret"] else {
            throw UploadFailure.refused("\(service) is not connected; connect \(service)")
        }
        let reply = try await http.send(.POST, tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: HTTP.form([("client_id", id), ("client_secret", secret),
                                                         ("grant_type", "refresh_token"), ("refresh_token", refresh)] + extra))
        switch reply.status {
        case 200...299:
            guard let json = reply.json, let next = apply(json, to: c, now: now), let access = next["access_token"] else {
                throw UploadFailure.server("\(service)'s token answer cannot be read: \(reply.text)")
            }
            try await attempt.keeper.replace(next)
            return access
        case 400, 401, 403:
            throw UploadFailure.refused("\(service) refused the refresh token (\(reply.status)): access was revoked; reconnect \(service)")
        default:
            throw reply.failure(service, now: now)
        }
    }

    /// Exchanges an authorization code for the first tokens.
    static func exchange(code: String, tokenURL: String, credential: Credential, http: HTTP, service: String, now: Double,
                         extra: [(String, String)] = []) async throws(UploadFailure) -> (Credential, JSONValue) {
        guard let id = credential["client_id"], let secret = credential["client_secret"] else {
            throw UploadFailure.rejected("enter \(service)'s client id and secret first")
        }
        let reply = try await http.send(.POST, tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: HTTP.form([("client_id", id), ("client_secret", secret), ("code", code),
                                                         ("grant_type", "authorization_code")] + extra))
        guard (200...299).contains(reply.status) else {
            if (400...403).contains(reply.status) {
                throw UploadFailure.refused("\(service) refused the authorization (\(reply.status)): \(reply.text)")
            }
            throw reply.failure(service, now: now)
        }
        guard let json = reply.json, var next = apply(json, to: credential, now: now) else {
            throw UploadFailure.server("\(service)'s token answer cannot be read: \(reply.text)")
        }
        next.connectedAt = now
        return (next, json)
    }
}
