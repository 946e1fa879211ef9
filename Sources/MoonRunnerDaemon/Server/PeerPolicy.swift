import Foundation

/// Who is on the other end of a connection: the kernel's `struct ucred`
/// from SO_PEERCRED (pid_t, uid_t, gid_t: three 32-bit fields, in this order,
/// which is also this struct's layout; glibc hides `ucred` behind _GNU_SOURCE).
struct PeerCredentials: Sendable, Equatable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
}

/// Decides which peers may change state: root, the daemon's own user, and
/// members of the control group. Everyone who can reach the socket may read.
struct PeerPolicy: Sendable {
    let daemonUID: UInt32
    let controlGID: UInt32?

    init(controlGroup: String) {
        daemonUID = getuid()
        if controlGroup.isEmpty {
            controlGID = nil
        } else {
            controlGID = controlGroup.withCString { name in getgrnam(name).map { $0.pointee.gr_gid } }
        }
    }

    func mayChangeState(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let gid = controlGID else { return false }
        if peer.gid == gid { return true }
        return Self.groups(of: peer.uid, primary: peer.gid).contains(gid)
    }

    /// Supplementary groups of a user, from the group database.
    private static func groups(of uid: UInt32, primary: UInt32) -> [UInt32] {
        guard let pw = getpwuid(uid), let name = pw.pointee.pw_name else { return [] }
        var count: Int32 = 64
        var list = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &list, &count) == -1 {
            list = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &list, &count) != -1 else { return [] }
        }
        return Array(list.prefix(Int(count)))
    }
}
