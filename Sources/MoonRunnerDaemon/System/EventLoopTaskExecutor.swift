import NIOCore
import NIOPosix

/// Runs the daemon's tasks on one NIO event loop, the one its control socket's
/// channels live on, instead of libdispatch's cooperative pool. A fix's job
/// then writes its `STATUS` lines where it runs, in the same wake, where the
/// pool woke one of its threads for the job and the loop's thread for the
/// lines (and was put aside for it on a small CPU). Nothing in the daemon's
/// tasks blocks: the store works on its own queue, the sensors and gpsd on
/// their own threads; timed waits are the loop's timers (`Doorbell`), since
/// `Task.sleep`'s timer is libdispatch's and would wake the pool again.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The daemon's loop (`withTaskExecutorPreference` in `Daemon.main`).
    static let daemon = EventLoopTaskExecutor(loop: MultiThreadedEventLoopGroup.singleton.next())

    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
