import Glibc

/// SIGUSR1 and SIGUSR2, held from the first line of `main`, before the command line is read.
///
/// Their default action ends a process, and `run` takes them (a pause, a resume) only once its
/// signal thread has started (`RunSignals`): one sent while flowrun starts, as a script that
/// pauses the run it just launched sends it, killed flowrun (exit 138). Held, it waits for
/// that thread. Only `run` takes them: any other command (a dry run too) gets the mask flowrun
/// started with back before it runs, and keeps their default action. A signal sent before
/// `main` (while the program is loaded) still ends flowrun: no program can hold one then.
/// Tasks never inherit the block: each child gets an empty mask at spawn.
enum StartupSignals {
    /// Blocks SIGUSR1 and SIGUSR2 in the calling thread, the main one while it is the only
    /// one, so that every thread made later starts with them blocked too; returns the mask
    /// flowrun started with.
    static func hold() -> sigset_t {
        var pause = sigset_t()
        sigemptyset(&pause)
        sigaddset(&pause, SIGUSR1)
        sigaddset(&pause, SIGUSR2)
        var starting = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pause, &starting)
        return starting
    }

    /// Puts back the mask flowrun started with, in the calling thread (the main one): a held
    /// signal that is pending is then delivered, with its default action.
    static func release(_ starting: sigset_t) {
        var mask = starting
        pthread_sigmask(SIG_SETMASK, &mask, nil)
    }
}
