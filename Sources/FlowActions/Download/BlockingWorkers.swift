import Foundation

/// Threads for `PlainHTTPReader`'s blocking reads, one a request running at once: a job goes to
/// an idle thread, or to a new one when none is idle. So there are as many threads as the run's
/// most downloads at once (its concurrency), made as they are first needed, and none for a run
/// without plain http downloads.
final class BlockingWorkers: @unchecked Sendable {
    // Unchecked Sendable: every field is read and written under `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var idle = 0
    private var stopping = false

    /// Runs `job` on a worker thread.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let spawn = idle < jobs.count
        if spawn { idle += 1 }  // the new thread counts as idle until it takes a job
        condition.signal()
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in work() }
            thread.name = "flowrun-http"
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty, !stopping { condition.wait() }
            if jobs.isEmpty {
                idle -= 1
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            idle -= 1
            condition.unlock()
            job()
            condition.lock()
            idle += 1
        }
    }

    /// Lets the threads end once the jobs queued are done: at the end of the run.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
