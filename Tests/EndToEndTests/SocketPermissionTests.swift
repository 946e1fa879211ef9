import Foundation
import MoonRunnerProtocol
import Testing

/// Who may reach the socket (the directory's mode) and who may change state
/// (SO_PEERCRED against root, the daemon's user and the control group).
/// The other user is `nobody` through `setpriv`, so these tests need root.
@Suite("Control socket: access control", .serialized,
       .enabled(if: getuid() == 0, "runs the CLI as nobody with setpriv: needs root (CI runs make test as root)"))
struct SocketPermissionTests {
    static func mode(_ path: String) -> (mode: mode_t, uid: uid_t, gid: gid_t)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (st.st_mode & 0o7777, st.st_uid, st.st_gid)
    }

    @Test("the directory is created 0750 and the socket 0660; another user cannot connect (CLI exit 69)")
    func otherUserCannotConnect() throws {
        let rig = try Rig("perm")
        let sock = rig.dir.appendingPathComponent("run/mr.sock").path
        let d = try SocketDaemon(rig, socket: sock)
        let dir = try #require(Self.mode(rig.dir.appendingPathComponent("run").path))
        #expect(dir.mode == 0o750 && dir.uid == 0)
        #expect(Self.mode(sock)?.mode == 0o660)
        let r = try d.cli(["status"], as: asNobody)
        #expect(r.status == 69, "\(r.out) \(r.err)")
        #expect(r.err.contains("Permission denied"))
        #expect(try d.cli(["status"]).status == 0)
        // The daemon removes its socket when it stops.
        d.child.signal(SIGTERM)
        #expect(d.child.wait(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: sock))
    }

    @Test("a peer outside the control group may read but not change state; the refusal is logged")
    func outsiderIsForbidden() throws {
        let rig = try Rig("outsider")
        let sock = rig.dir.appendingPathComponent("run/mr.sock").path
        // The daemon runs as root with group nogroup, so nobody can reach the socket through the group;
        // the control group is one nobody is not in.
        let d = try SocketDaemon(rig, socket: sock, config: "socket:\n  control_group: daemon\n",
                                 wrapper: ["/usr/bin/setpriv", "--regid=nogroup", "--clear-groups"])
        let dir = try #require(Self.mode(rig.dir.appendingPathComponent("run").path))
        #expect(dir.mode == 0o750 && dir.gid == 65534)
        #expect(try d.cli(["status"], as: asNobody).status == 0)
        #expect(try d.cli(["sessions"], as: asNobody).status == 0)
        let refused = try d.cli(["start", "--json"], as: asNobody)
        #expect(refused.status == 77)
        let error = try ReplyEncoder.decode(ErrorReply.self, from: refused.out.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(error.code == .forbidden)
        #expect(error.message.contains("daemon"), "names the group: \(error.message)")
        for command in [["pause"], ["resume"], ["lap"], ["stop"], ["delete", "1"]] {
            let r = try d.cli(command, as: asNobody)
            #expect(r.status == 77, "\(command): \(r.err)")
            #expect(r.err.contains("forbidden"))
        }
        #expect(try d.status().state == .idle)
        #expect(d.child.log.contains("refused ?START; from uid 65534"))
        // Root may.
        #expect(try d.cli(["start"]).status == 0)
        #expect(try d.status().state != .idle)
    }

    @Test("a peer in the control group may change state")
    func memberMayChangeState() throws {
        let rig = try Rig("member")
        let sock = rig.dir.appendingPathComponent("run/mr.sock").path
        let d = try SocketDaemon(rig, socket: sock, config: "socket:\n  control_group: nogroup\n",
                                 wrapper: ["/usr/bin/setpriv", "--regid=nogroup", "--clear-groups"])
        let start = try d.cli(["start", "--activity", "walk"], as: asNobody)
        #expect(start.status == 0, "\(start.err)")
        #expect(try d.cli(["lap"], as: asNobody).status == 0)
        #expect(try d.cli(["pause"], as: asNobody).status == 0)
        #expect(try d.status().state == .paused)
        #expect(try d.cli(["resume"], as: asNobody).status == 0)
        let stop = try d.cli(["stop", "--json"], as: asNobody)
        #expect(stop.status == 0)
        let id = try #require(try ReplyEncoder.decode(StatusReply.self, from: stop.out.trimmingCharacters(in: .whitespacesAndNewlines)).session)
        #expect(try d.cli(["delete", String(id)], as: asNobody).status == 0)
        #expect(try d.cli(["show", String(id)]).status == 1)
        #expect(!d.child.log.contains("refused"))
    }

    @Test("an existing directory others can enter is tightened; a shared one is refused; a live socket is not taken over")
    func directoryChecks() throws {
        let rig = try Rig("dirs")
        // Ours and too open: tightened.
        let open = rig.dir.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        chmod(open.path, 0o755)
        let d = try SocketDaemon(rig, socket: open.appendingPathComponent("mr.sock").path)
        #expect(Self.mode(open.path)?.mode == 0o750)
        #expect(d.child.log.contains("tightened"))

        // A second daemon on the same live socket refuses to start (EX_CONFIG) and the first goes on.
        let second = try SocketDaemon(rig, socket: d.socket, wrapper: [], waitForSocket: false, tag: "second")
        #expect(second.child.wait(timeout: 15) == 78, "\(second.child.log.suffix(800))")
        #expect(second.child.log.contains("socket.path") && second.child.log.contains("listening"))
        #expect(try d.cli(["status"]).status == 0)

        // A socket left by a killed daemon is stale: the next one clears it and serves.
        d.child.signal(SIGKILL)
        _ = d.child.wait(timeout: 5)
        #expect(FileManager.default.fileExists(atPath: d.socket))
        let third = try SocketDaemon(rig, socket: d.socket, tag: "third")
        #expect(try third.cli(["status"]).status == 0)

        // A sticky, world-writable directory (like /tmp) is refused, naming the key.
        let shared = rig.dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o1777)
        let refused = try SocketDaemon(rig, socket: shared.appendingPathComponent("mr.sock").path, waitForSocket: false,
                                       tag: "shared")
        #expect(refused.child.wait(timeout: 15) == 78, "\(refused.child.log.suffix(800))")
        #expect(refused.child.log.contains("socket.path"))
        #expect(Self.mode(shared.path)?.mode == 0o1777, "a shared directory is left alone")
    }
}
