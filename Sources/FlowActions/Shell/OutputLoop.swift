import CSpawn
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread that watches every running child with epoll(7): the stdout and stderr pipes, and
/// a pidfd that tells when the child has exited.
///
/// flowrun makes fewer system calls per small task than a bare posix_spawn loop, but about 9
/// context switches against 2 (perf, 5,000 `true` tasks). So a child is added with `epoll_ctl`
/// from the thread that spawned it, without waking the loop (poll(2) needed a wake-up to learn
/// of new descriptors), and the exit is watched here too rather than by a thread blocked in
/// `waitpid` per child. Dispatch read sources were tried
/// first: libdispatch's own epoll loop crashed (`_dispatch_event_loop_drain`, a bad pointer) in
/// one run in a few of 10,000 `true` tasks.
///
/// - Warning: `watches` is guarded by `lock`; the handlers run on the loop's thread, so a
///   handler needs no lock for state only it touches.
final class OutputLoop: @unchecked Sendable {
    enum Watch {
        /// A pipe: the handler gets each chunk read, then nil at end of file.
        case output(Int32, (ArraySlice<UInt8>?) -> Void)
        /// A pidfd: the handler runs once the process has exited (and is not yet reaped).
        case exit(Int32, () -> Void)

        var descriptor: Int32 {
            switch self {
            case .output(let descriptor, _), .exit(let descriptor, _): descriptor
            }
        }
    }

    static let shared = OutputLoop()

    private let epoll: Int32
    private let lock = NSLock()
    private var watches: [Int32: Watch] = [:]

    private init() {
        epoll = flowrun_epoll_create()
        precondition(epoll >= 0, "cannot create the output loop's epoll instance")
        let thread = Thread { [self] in run() }
        thread.name = "flowrun.output"
        thread.start()
    }

    /// Watches the descriptors (which the loop now owns and closes) until each is done: a pipe
    /// at end of file, a pidfd at the exit.
    func watch(_ added: [Watch]) {
        for watch in added {
            let descriptor = watch.descriptor
            // A pipe's read end has no other status flags to keep.
            if case .output = watch { _ = fcntl(descriptor, F_SETFL, O_NONBLOCK) }
            lock.withLock { watches[descriptor] = watch }
            precondition(flowrun_epoll_add(epoll, descriptor) == 0, "cannot watch a child's descriptor: errno \(errno)")
        }
    }

    private func run() {
        var ready = [Int32](repeating: -1, count: 64)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var done: [Int32] = []
        while true {
            let count = flowrun_epoll_wait(epoll, &ready, Int32(ready.count))
            guard count > 0 else { continue }  // EINTR
            for descriptor in ready[0..<Int(count)] {
                guard let watch = lock.withLock({ watches[descriptor] }) else { continue }
                switch watch {
                case .output(_, let handler):
                    if !drain(descriptor, handler, into: &buffer) { done.append(descriptor) }
                case .exit(_, let handler):
                    handler()
                    done.append(descriptor)
                }
            }
            // Closed only after the whole batch: a number closed earlier could otherwise be
            // reused by a new child before a later event of this batch names it.
            for descriptor in done {
                lock.withLock { watches[descriptor] = nil }
                _ = flowrun_epoll_remove(epoll, descriptor)
                close(descriptor)
            }
            done.removeAll(keepingCapacity: true)
        }
    }

    /// Reads what is there; false (handler told) at end of file or on error.
    private func drain(_ descriptor: Int32, _ handler: @escaping (ArraySlice<UInt8>?) -> Void, into buffer: inout [UInt8]) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                handler(buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && errno == EAGAIN {
                return true
            } else {
                handler(nil)
                return false
            }
        }
    }
}
