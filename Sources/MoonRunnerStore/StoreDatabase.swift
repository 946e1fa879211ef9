import Foundation
import GRDB

/// Opens the store's two files: the SQLite database (checked, migrated, kept
/// aside when damaged) and the journal beside it.
enum StoreDatabase {
    /// Opens (creating if needed) the database at `path`. One that fails
    /// `PRAGMA quick_check` is renamed aside, never deleted, and a new one is
    /// started; the damage is returned so that the daemon can say so.
    static func openKeepingDamageAside(_ path: String) throws -> (DatabasePool, damage: StoreError?) {
        do {
            return (try open(path), nil)
        } catch {
            let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
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

    private static func open(_ path: String) throws -> DatabasePool {
        var config = Configuration()
        config.busyMode = .timeout(5)
        // Each connection's page cache fills up to SQLite's default 2 MB as the database
        // grows, and stays: growth of the daemon's memory over a long session that
        // nothing needs (consolidation appends, reads are a session at a time;
        // measured with footprint.py). 512 KiB each, and two readers instead of GRDB's five.
        config.maximumReaderCount = 2
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -512") }
        let pool = try DatabasePool(path: path, configuration: config)
        // GRDB sets synchronous=NORMAL with WAL; a committed batch must survive
        // a power cut, so the (single) writer connection gets FULL.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let check = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard check == ["ok"] else {
            throw StoreError.cannotOpen(path: path, reason: "quick_check: \(check.prefix(3).joined(separator: "; "))")
        }
        try Schema.migrator.migrate(pool)
        return pool
    }
}
