import MoonRunnerStore

/// How the session's rows reach the store (`CommitScheduler` decides when).
/// A routine commit (the interval passed, nothing forces it) is handed to the
/// journal's queue and its outcome taken at the next input (`CommitMailbox`):
/// one wake of the pool a commit fewer. A forced commit (an event, a stop, a
/// command) is awaited, and follows the routine one in flight.
extension SessionService {
    /// Returns once no commit is in flight or queued.
    func commitsSettled() async {
        await takeRoutineOutcome()
        if routineInFlight { await awaitRoutineOutcome() }
        guard commits.isBusy else { return }
        await withCheckedContinuation { commits.wait($0) }
    }

    /// Writes the batch the scheduler hands out. On failure its rows stay
    /// pending and are retried at the next commit.
    func commit(force: Bool) async {
        await takeRoutineOutcome()
        if force && routineInFlight { await awaitRoutineOutcome() }
        let ended = engine.state == .stopped
        let taken = commits.begin(force: force, at: clock.now(), ended: ended) { batch in
            if let s = recording.steps.take() { batch.stepSeconds.append(s) }
            batch.snapshot = engine.snapshot
        }
        guard let batch = taken else { return }
        if !force && !ended {
            routineInFlight = true
            store.append(batch) { [routine] result in routine.deliver(.init(batch: batch, result: result)) }
            return
        }
        do {
            try await store.commit(batch)
            await finish(batch, error: nil)
        } catch {
            await finish(batch, error: error)
        }
    }

    /// The routine commit's outcome, when the journal's queue has left it.
    func takeRoutineOutcome() async {
        guard routineInFlight, !awaitingRoutine, let outcome = routine.take() else { return }
        await finishRoutine(outcome)
    }

    /// Waits for the routine commit in flight: something needs it written.
    /// A second caller meanwhile returns at once (it waits as `commitsSettled` does).
    private func awaitRoutineOutcome() async {
        guard routineInFlight, !awaitingRoutine else { return }
        awaitingRoutine = true
        let outcome = await routine.wait()
        awaitingRoutine = false
        await finishRoutine(outcome)
    }

    private func finishRoutine(_ outcome: CommitMailbox.Outcome) async {
        routineInFlight = false
        switch outcome.result {
        case let .success(consolidate):
            if consolidate { await store.consolidateAndTrim() }
            await finish(outcome.batch, error: nil)
        case let .failure(error):
            await finish(outcome.batch, error: error)
        }
    }

    /// The write of `batch` is over: the store's health, then the forced
    /// commit queued behind it and the commands waiting for it.
    private func finish(_ batch: CommitBatch, error: (any Error)?) async {
        if let error {
            if commits.failed(batch, error: error) { logger.error("store error: \(error)") }
        } else if commits.written() {
            logger.notice("store writable again; pending rows committed")
        }
        if commits.takeQueued() { await commit(force: true) }
        for waiter in commits.settled() { waiter.resume() }
    }
}
