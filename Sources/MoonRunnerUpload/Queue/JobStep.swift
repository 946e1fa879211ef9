/// What a job becomes after an attempt: the decision of the queue, kept
/// apart from the ledger, the log and the clock so that it is tested as a
/// value (`UploadQueue+Attempt` writes what it returns). Time comes in.
///
/// A `done` keeps the service's id and link; `processing` asks again after
/// `RetryPolicy.poll`; a refused credential holds the job (the queue marks
/// the credential too), a refused file fails it, a rate limit waits for the
/// moment the service named, and no answer or a 5xx waits with back-off
/// until `maxAttempts`, then fails (a person may still retry). A job that
/// failed without an answer stays `sending` when it was: in doubt.
public enum JobStep {
    public static func after(_ outcome: UploadOutcome, job: UploadJob, at now: Double) -> UploadJob {
        var j = job
        j.updatedAt = now
        switch outcome {
        case let .done(id, url):
            j.remoteID = id
            j.remoteURL = url
            j.pending = nil
            j.again = false
            j.state = .done
            j.lastError = nil
        case let .processing(pending):
            let polls = job.state == .processing ? job.attempts : 0
            j.pending = pending
            j.state = .processing
            j.lastError = nil
            j.nextAt = now + RetryPolicy.poll(afterPolls: polls)
        }
        return j
    }

    public static func after(_ failure: UploadFailure, job: UploadJob, policy: RetryPolicy, maxAttempts: Int,
                             at now: Double) -> UploadJob {
        var j = job
        j.updatedAt = now
        switch failure {
        case let .refused(why):
            j.state = .held
            j.lastError = why
        case let .rejected(why):
            j.state = .failed
            j.lastError = why
        case let .rateLimited(until, why):
            j.lastError = why
            j.nextAt = until
        case .network, .server:
            guard job.attempts < maxAttempts else {
                j.state = .failed
                j.lastError = "\(failure) (gave up after \(job.attempts) attempts)"
                return j
            }
            j.lastError = failure.description
            j.nextAt = now + policy.wait(afterAttempts: max(1, job.attempts))
        }
        return j
    }
}
