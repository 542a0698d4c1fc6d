import Glibc

/// Descriptors 0, 1 and 2 that flowrun was started without (`flowrun ... >&-`, `2>&-`, `<&-`)
/// are opened on /dev/null first thing, as git's `sanitize_stdfds` does.
///
/// Left closed, the next file flowrun opens takes the lowest free number: the console was
/// written into `.flowrun/lock`, a diagnostic into whatever file came next, and a write that
/// failed on stderr stopped flowrun with SIGILL. Standard output is opened read-only, so that
/// writing to it still fails (EBADF) and is reported as any failed write of the console is;
/// standard error takes writes and drops them, since there is nowhere to report its failure.
enum StandardDescriptors {
    static func openClosedOnes() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let flags = descriptor == STDERR_FILENO ? O_WRONLY : O_RDONLY
            let opened = open("/dev/null", flags)  // the lowest free number: this one
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }
}
