import Glibc

/// The flowrun the tests start gets SIGHUP, SIGINT, SIGQUIT and SIGTERM at their default action,
/// as a terminal's user has them, whatever the suite was started with. Started with one ignored
/// (`scripts/test &` from a non-interactive sh ignores SIGINT and SIGQUIT, `nohup` SIGHUP), the
/// suite passed it on: Foundation's Process keeps an ignored signal ignored in the child, and
/// flowrun keeps ignored what its parent ignored (IgnoredSignalTests), so every Ctrl-C test
/// failed. Set back once, before the first child starts.
enum ChildSignals {
    static let restored: Void = {
        for number in [SIGHUP, SIGINT, SIGQUIT, SIGTERM] {
            var current = sigaction()
            if sigaction(number, nil, &current) == 0, Self.isIgnoring(current) { signal(number, SIG_DFL) }
        }
    }()

    /// `SIG_IGN`, compared by value (Swift has no `==` for C function pointers).
    private static func isIgnoring(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
