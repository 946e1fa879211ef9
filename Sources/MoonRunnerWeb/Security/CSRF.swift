import Foundation

/// The token every form that changes state carries (a hidden `csrf` field):
/// an HMAC-SHA256, under the web app's own key, of the device it was
/// rendered for. A page from another site cannot read it (the device cookie
/// is `HttpOnly` and the pages are same-origin only), so a forged POST lacks
/// it; it needs no storage and dies with the device when it is revoked.
public enum CSRF {
    public static func token(for device: String, key: Data) -> String {
        DeviceStore.base64URL(Digest.hmacSHA256(key: key, message: Array("csrf|\(device)".utf8)))
    }

    /// Constant-time check of a submitted token.
    public static func valid(_ submitted: String?, for device: String, key: Data) -> Bool {
        guard let submitted else { return false }
        let expected = Array(token(for: device, key: key).utf8), given = Array(submitted.utf8)
        guard expected.count == given.count else { return false }
        var diff: UInt8 = 0
        for (a, b) in zip(expected, given) { diff |= a ^ b }
        return diff == 0
    }
}

/// The Origin check of every POST: a browser names the page that sent a
/// form; it must be this server as the request addressed it (its `Host`).
/// A missing Origin is refused too (every browser this app supports sends
/// one on POST), and so is `null`. Under the `Referrer-Policy: no-referrer`
/// header a browser sends `Origin: null` with a form, so the pages set
/// `<meta name="referrer" content="same-origin">`: their own forms then
/// carry their origin, and still no referrer leaves the Pi.
public enum OriginCheck {
    public static func sameOrigin(origin: String?, host: String?) -> Bool {
        guard let origin, let host, !host.isEmpty else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }
}
