import CLinux
import Glibc

/// Starts a child process (vfork and exec, `flowrun_spawn` in CLinux), in a process group of its
/// own, with its stdout and stderr on pipes. Not swift-subprocess or glibc's posix_spawn:
/// spawning is most of the cost of small tasks, and both do more per child than a task needs
/// (docs/processes.md).
enum ProcessLauncher {
    struct Launched {
        var pid: pid_t
        /// Read ends of the child's stdout and stderr, close-on-exec.
        var stdout: Int32
        var stderr: Int32
    }

    struct LaunchError: Error {
        var message: String
        /// The `errno` of a failed spawn (0 for other failures).
        var code: Int32 = 0

        /// The program `name` could not be run: not found, or the spawn failed with `code`.
        static func cannotRun(_ name: String, code: Int32) -> Self {
            Self(message: "cannot run '\(name)': \(errorText(code))", code: code)
        }

        /// Why the child cannot change into `directory`, if it cannot: its `chdir` comes before
        /// `execve`, with the same errno, so a failed spawn is checked for it (only then, to
        /// spare every task a `stat`) and told apart from a program that cannot run.
        static func unusableWorkdir(_ directory: String) -> Self? {
            var info = stat()
            guard stat(directory, &info) == 0 else {
                let reason = errno == ENOENT ? "does not exist" : "cannot be used: \(errorText(errno))"
                return Self(message: "workdir '\(directory)' \(reason)")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { return Self(message: "workdir '\(directory)' is not a directory") }
            guard access(directory, X_OK) == 0 else { return Self(message: "workdir '\(directory)' cannot be used: \(errorText(errno))") }
            return nil
        }
    }

    /// Spawns the program at `executable` (found by `ExecutableLookup`; a relative path is taken
    /// from `directory`) with `argv`, in `directory`, with `environment` (a NULL-terminated `envp`).
    static func launch(
        _ argv: [String], executable: String, environment: UnsafePointer<UnsafeMutablePointer<CChar>?>, directory: String
    ) throws(LaunchError) -> Launched {
        // The four pipe ends and the argv pointers on the stack: no array made and freed a task.
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { (ends) throws(LaunchError) -> Launched in
            let out = ends.baseAddress!
            let err = out + 2
            guard flowrun_pipe_cloexec(out) == 0 else { throw LaunchError(message: "cannot create a pipe: \(errorText(errno))") }
            guard flowrun_pipe_cloexec(err) == 0 else {
                close(out[0]); close(out[1])
                throw LaunchError(message: "cannot create a pipe: \(errorText(errno))")
            }
            defer {
                close(out[1])
                close(err[1])
            }

            // Its own process group, so that cancelling kills the whole tree; default signal
            // actions and an empty mask, because flowrun ignores SIGPIPE and blocks SIGINT and
            // friends, and exec would pass that on.
            var pid: pid_t = 0
            var status: Int32 = 0
            // No chdir into the folder the child starts in anyway (flowrun's own, most often the
            // workflow's): a path walk per task for nothing.
            _ = TaskGroups.shared.spawning {
                status = withCStrings(argv) { cArgv in
                    directory == currentDirectory
                        ? flowrun_spawn(executable, cArgv, environment, nil, devNull, out[1], err[1], TaskGroups.shared.watchdogDescriptor, &pid)
                        : flowrun_spawn(executable, cArgv, environment, directory, devNull, out[1], err[1], TaskGroups.shared.watchdogDescriptor, &pid)
                }
                return status == 0 ? pid : nil
            }
            guard status == 0 else {
                close(out[0]); close(err[0])
                throw LaunchError.unusableWorkdir(directory) ?? .cannotRun(argv[0], code: status)
            }
            return Launched(pid: pid, stdout: out[0], stderr: err[0])
        }
    }

    /// Every child's stdin, opened once rather than in each child (a path lookup per task); -1
    /// if that failed, and each child opens it itself.
    private static let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)

    /// flowrun's working folder, which it never changes: where a child starts before any chdir.
    /// nil if it cannot be named (removed, or too long), and every child changes folder.
    private static let currentDirectory: String? = {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }()

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A NULL-terminated array of C strings that lives for the duration of `body`; the array
    /// itself on the stack when it is small.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<CChar>?.self, capacity: strings.count + 1) { pointers in
            for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
            pointers[strings.count] = nil
            defer { for index in 0..<strings.count { free(pointers[index]) } }
            return body(UnsafePointer(pointers.baseAddress!))
        }
    }
}
