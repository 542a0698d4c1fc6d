import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread that watches every running child with poll(2), as ninja's subprocess set does:
/// the stdout and stderr pipes, and a pidfd that tells when the child has exited.
///
/// Dispatch read sources were used first; with thousands of short-lived children, libdispatch's
/// epoll loop on Linux crashed (`_dispatch_event_loop_drain`, a bad pointer) in one run in a few
/// of 10,000 `true` tasks. A plain poll loop has no such registration to go stale. Watching the
/// exit here too (instead of a thread blocked in `waitpid` per child) saves a thread wake-up per
/// task, which counts when tasks are as small as `true` (bench/run_bench.py).
///
/// - Warning: `added` is guarded by `lock`; everything else belongs to the loop's thread, and
///   so do the handlers' calls: a handler needs no lock for state only it touches.
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

    private let lock = NSLock()
    private var added: [Watch] = []
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1

    private init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "cannot create the output loop's wake-up pipe")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        let thread = Thread { [self] in run() }
        thread.name = "flowrun.output"
        thread.start()
    }

    /// Watches the descriptors (which the loop now owns and closes) until each is done: a
    /// pipe at end of file, a pidfd at the exit. One wake-up of the loop for all of them.
    func watch(_ watches: [Watch]) {
        for case .output(let descriptor, _) in watches {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        lock.withLock { added += watches }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        var watched: [Watch] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var polled: [pollfd] = []
        while true {
            watched += lock.withLock {
                defer { added.removeAll() }
                return added
            }
            polled.removeAll(keepingCapacity: true)
            polled.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for entry in watched { polled.append(pollfd(fd: entry.descriptor, events: Int16(POLLIN), revents: 0)) }
            guard poll(&polled, nfds_t(polled.count), -1) > 0 else { continue }  // EINTR
            if polled[0].revents != 0 {
                while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
            }
            var ended: [Int] = []
            for index in watched.indices where polled[index + 1].revents != 0 {
                switch watched[index] {
                case .output(let descriptor, let handler):
                    if !drain(descriptor, handler, into: &buffer) { ended.append(index) }
                case .exit(let descriptor, let handler):
                    close(descriptor)
                    handler()
                    ended.append(index)
                }
            }
            for index in ended.reversed() { watched.remove(at: index) }
        }
    }

    /// Reads what is there; false (descriptor closed, handler told) at end of file or on error.
    private func drain(_ descriptor: Int32, _ handler: (ArraySlice<UInt8>?) -> Void, into buffer: inout [UInt8]) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                handler(buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && errno == EAGAIN {
                return true
            } else {
                close(descriptor)
                handler(nil)
                return false
            }
        }
    }
}
