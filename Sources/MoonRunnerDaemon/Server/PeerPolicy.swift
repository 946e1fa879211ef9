import Foundation

/// Who is on the other end of a connection: the kernel's `struct ucred`
/// from SO_PEERCRED (pid_t, uid_t, gid_t: three 32-bit fields, in this order,
/// which is also this struct's layout; glibc hides `ucred` behind _GNU_SOURCE).
struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    var description: String { "uid \(uid) gid \(gid) pid \(pid)" }
}

/// Decides which peers may change state: root, the daemon's own user, and
/// members of the control group. Everyone who can reach the socket may read;
/// reaching it at all is up to the socket directory's mode.
struct PeerPolicy: Sendable {
    let daemonUID: UInt32
    let controlGroup: String
    /// nil when no control group is configured or it does not exist.
    let controlGID: UInt32?

    init(controlGroup: String) {
        daemonUID = geteuid()
        self.controlGroup = controlGroup
        controlGID = controlGroup.isEmpty ? nil : Self.groupID(named: controlGroup)
    }

    /// True when the configured group does not exist (worth a warning at start).
    var controlGroupMissing: Bool { !controlGroup.isEmpty && controlGID == nil }

    func mayChangeState(_ peer: PeerCredentials?) -> Bool {
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
