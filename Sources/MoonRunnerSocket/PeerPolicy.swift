import Foundation
import NIOCore

/// Who is on the other end of a connection: the kernel's `struct ucred`
/// from SO_PEERCRED (pid_t, uid_t, gid_t: three 32-bit fields, in this order,
/// which is also this struct's layout; glibc hides `ucred` behind _GNU_SOURCE).
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "uid \(uid) gid \(gid) pid \(pid)" }
}

/// Decides which peers may change state: root, the server's own user, and
/// members of the control group. Everyone who can reach the socket may read;
/// reaching it at all is up to the socket directory's mode. The daemon's
/// control socket and the web app's admin socket both decide by it.
public struct PeerPolicy: Sendable {
    public let daemonUID: UInt32
    public let controlGroup: String
    /// nil when no control group is configured or it does not exist.
    public let controlGID: UInt32?

    public init(controlGroup: String) {
        daemonUID = geteuid()
        self.controlGroup = controlGroup
        controlGID = controlGroup.isEmpty ? nil : Self.groupID(named: controlGroup)
    }

    /// True when the configured group does not exist (worth a warning at start).
    public var controlGroupMissing: Bool { !controlGroup.isEmpty && controlGID == nil }

    public func mayChangeState(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let gid = controlGID else { return false }
        if peer.gid == gid { return true }
        return Self.groups(ofUID: peer.uid, primary: peer.gid).contains(gid)
    }

    /// The group's id, through the reentrant lookup (connections are checked concurrently).
    private static func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let rc = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
        guard rc == 0, result != nil else { return nil }
        return entry.gr_gid
    }

    /// Supplementary groups of a user from the group database (reentrant lookups only).
    private static func groups(ofUID uid: UInt32, primary: UInt32) -> [UInt32] {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &pw, &buffer, buffer.count, &result) == 0, result != nil, let name = pw.pw_name else {
            return []
        }
        var count: Int32 = 64
        var list = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &list, &count) == -1 {
            list = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &list, &count) != -1 else { return [] }
        }
        return Array(list.prefix(Int(count)))
    }
}

extension PeerCredentials {
    /// The peer of a Unix socket connection (SO_PEERCRED); nil when the channel cannot say.
    public static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET),
                                                                            name: SocketOptionName(SO_PEERCRED))
        return future.map { Optional($0) }.recover { _ in nil }
    }
}
