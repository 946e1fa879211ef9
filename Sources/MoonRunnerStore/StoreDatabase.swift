import Foundation
import GRDB

/// Opens the store's two files: the SQLite database (checked, migrated, kept
/// aside when damaged) and the journal beside it.
enum StoreDatabase {
    /// Opens (creating if needed) the database at `path`. One that fails
    /// `PRAGMA quick_check` is renamed aside, never deleted, and a new one is
    /// started; the damage is returned so that the daemon can say so.
    static func openKeepingDamageAside(_ path: String) throws -> (DatabaseQueue, damage: StoreError?) {
        do {
            return (try open(path), nil)
        } catch {
            let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
            for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
                do {
                    try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
                } catch {
                    throw StoreError.cannotOpen(path: path, reason: "damaged and cannot be moved aside: \(error)")
                }
            }
            let damage = StoreError.damaged(path: path, keptAs: aside, reason: "\(error)")
            do {
                return (try open(path), damage)
            } catch {
                throw StoreError.cannotOpen(path: path, reason: "\(error)")
            }
        }
    }

    static func openJournal(_ path: String) throws -> JournalFile {
        do {
            return try JournalFile(path: path, lock: true)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    private static func open(_ path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.busyMode = .timeout(5)
        // The page cache fills up to SQLite's default 2 MB as the database grows, and
        // stays: growth of the daemon's memory over a long session that nothing needs
        // (consolidation appends, reads are a session at a time; measured with footprint.py).
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -512") }
        // One connection: the daemon is the store's only user, its commits go to the
        // journal, and the database is written only when it takes the journal in.
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.writeWithoutTransaction { db in
            // A rollback journal, not a WAL: the pages a consolidation appends (nearly all
            // it writes) reach the SD card once, where a WAL writes them twice (the WAL, then
            // its checkpoint); only the pages it changes are journaled (store_writes.py).
            // PERSIST zeroes the journal's header at each commit instead of deleting the file.
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = PERSIST")
            guard mode == "persist" else {
                throw StoreError.cannotOpen(path: path, reason: "journal_mode is \(mode ?? "unknown"), not persist")
            }
            try db.execute(sql: "PRAGMA journal_size_limit = 1048576")
            // A taken-in batch must survive a power cut before the journal lets it go.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard check == ["ok"] else {
            throw StoreError.cannotOpen(path: path, reason: "quick_check: \(check.prefix(3).joined(separator: "; "))")
        }
        try Schema.migrator.migrate(queue)
        return queue
    }
}
