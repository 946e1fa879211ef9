import Foundation
import Logging
import MoonRunnerCore

extension UploadQueue {
    /// One pass: every open job of a ready target that is due, one after the other. A pass
    /// asked for while one runs returns at once: the actor is reentrant at each `await`, and two
    /// passes could otherwise send the same job twice.
    func workDue() async {
        guard !working, networkAllows, let jobs = try? ledger.openJobs() else { return }
        working = true
        defer { working = false }
        for job in jobs where ready(job.target) && job.nextAt <= now() && (heldBack[key(job)] ?? 0) <= now() {
            guard !Task.isCancelled, networkAllows else { return }
            await attempt(job)
        }
    }

    /// One attempt of one job, each step written to the ledger before the next.
    func attempt(_ start: UploadJob) async {
        guard let target = targets[start.target], var credential = try? ledger.credential(start.target) else { return }
        var job = start
        let file: Data
        do {
            switch try await source.export(session: job.session, format: "fit", zones: settings.zones(for: job.target)) {
            case .deleted: return finish(&job, .deleted, "the session was deleted before it was sent")
            case .empty: return finish(&job, .empty, "every point lies inside the privacy zones: nothing to send")
            case let .file(data): file = data
            }
        } catch {
            return later(&job, "the daemon could not export the session: \(error)", wait: policy.wait(afterAttempts: 1))
        }
        if let first = FITStart.firstRecord(file) { job.startTime = first }
        let ledger = self.ledger, kind = job.target
        let keeper = CredentialKeeper(credential) { c in try ledger.setCredential(kind, c) }
        let zones = settings.zones(for: job.target), source = self.source, session = job.session
        let attempt = UploadAttempt(
            job: job, file: file, title: Self.title(job), description: "Recorded with MoonRunner (session \(job.session)).",
            keeper: keeper, now: now,
            other: { format in
                if case let .file(d) = try await source.export(session: session, format: format, zones: zones) { return d }
                return nil
            })
        do {
            let outcome = try await perform(target, attempt, job: &job)
            record(&job, outcome)
        } catch {
            credential = await keeper.credential
            failed(&job, error, credential: credential)
        }
    }

    /// Polls, looks for an earlier attempt, or sends: the `sending` mark is written before anything leaves.
    private func perform(_ target: any UploadTarget, _ attempt: UploadAttempt, job: inout UploadJob) async throws(UploadFailure) -> UploadOutcome {
        if job.state == .processing, let pending = job.pending {
            job.attempts += 1
            return try await target.poll(attempt, pending: pending)
        }
        if job.inDoubt, let found = try await target.find(attempt) {
            logger.notice("\(job.target.title): session \(job.session) was already there from an earlier attempt")
            return found
        }
        job.state = .sending
        job.attempts += 1
        // "Upload again" has done its part once a request leaves: a later doubt looks for this one.
        job.again = false
        job.updatedAt = now()
        do {
            try ledger.save(job)
        } catch {
            // Nothing is sent that the ledger cannot remember having sent.
            job.attempts -= 1
            throw UploadFailure.server("the ledger cannot be written (\(error)); nothing was sent")
        }
        var sending = attempt
        sending.job = job
        return try await target.send(sending)
    }

    private func record(_ job: inout UploadJob, _ outcome: UploadOutcome) {
        job = JobStep.after(outcome, job: job, at: now())
        save(job)
        if job.state == .done {
            notify(job)
            logger.notice("session \(job.session) uploaded to \(job.target.title): \(job.remoteURL ?? job.remoteID ?? "")")
        }
    }

    private func failed(_ job: inout UploadJob, _ error: any Error, credential: Credential) {
        let failure = error as? UploadFailure ?? .server("\(error)")
        job = JobStep.after(failure, job: job, policy: policy, maxAttempts: settings.maxAttempts, at: now())
        save(job)
        switch job.state {
        case .held:
            var c = credential
            c.refused = job.lastError
            try? ledger.setCredential(job.target, c)
            logger.warning("\(job.target.title): \(job.lastError ?? ""); nothing more is tried until it is reconnected")
            notify(job)
        case .failed:
            logger.warning("\(job.target.title), session \(job.session): \(job.lastError ?? "")")
            notify(job)
        default:
            logger.info("\(job.target.title), session \(job.session): \(failure); next try in \(Self.seconds(job.nextAt - now()))")
        }
    }

    /// A wait as the log says it: "0.3 s", "20 s".
    static func seconds(_ s: Double) -> String {
        s < 10 ? "\((s * 10).rounded() / 10) s" : "\(Int(s.rounded())) s"
    }

    private func later(_ job: inout UploadJob, _ why: String, wait: Double) {
        logger.info("\(job.target.title), session \(job.session): \(why); next try in \(Self.seconds(wait))")
        job.lastError = why
        job.nextAt = now() + wait
        save(job)
    }

    private func finish(_ job: inout UploadJob, _ state: JobState, _ why: String?) {
        job.state = state
        job.lastError = why
        save(job)
        notify(job)
    }

    /// Writes the job; when the ledger cannot be written, the job is held back in memory
    /// (its ledger row stays as it was: `sending` is in doubt and is looked for before a resend).
    private func save(_ job: UploadJob) {
        var j = job
        j.updatedAt = now()
        do {
            try ledger.save(j)
            heldBack[key(j)] = nil
        } catch {
            logger.error("the ledger cannot be written (\(error)); session \(j.session) waits for it")
            heldBack[key(j)] = now() + policy.wait(afterAttempts: max(1, j.attempts))
        }
    }

    static func title(_ job: UploadJob) -> String {
        let noun = (Activity(rawValue: job.activity) ?? .run).profile.sport.noun
        return "MoonRunner \(noun)"
    }
}
