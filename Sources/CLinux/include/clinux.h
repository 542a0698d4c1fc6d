#ifndef FLOWRUN_CLINUX_H
#define FLOWRUN_CLINUX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

/// Lets go of the pages of flowrun's own code and read-only data that are in memory (the
/// executable's segments that are not writable): they leave the process's resident memory, and
/// come back from the page cache, the same bytes, when run or read again. `run` calls it once
/// the plan is read, so that the code of start-up (argument parsing, the YAML parser, the plan's
/// reader) takes no room for the rest of the run. Does nothing to an executable with text
/// relocations (its read-only pages would be private copies). Returns the bytes let go of
/// (mapped, resident or not).
size_t flowrun_release_code_pages(void);
/// glibc's major(3) and minor(3) of a device number (macros, which Swift cannot call): the
/// kernel names a device MAJOR:MINOR, as /proc/locks does.
static inline unsigned int flowrun_device_major(dev_t device) { return major(device); }
static inline unsigned int flowrun_device_minor(dev_t device) { return minor(device); }

/// pipe2(fds, O_CLOEXEC): both ends close on exec, atomically, so a child spawned by another
/// thread at the same moment cannot inherit them (and hold a pipe open past its owner's exit).
int flowrun_pipe_cloexec(int fds[2]);

/// Whether `sig` (SIGHUP, SIGINT, SIGQUIT or SIGTERM) was ignored when flowrun started, read
/// before main: `nohup` ignores SIGHUP, `cmd &` in a non-interactive sh SIGINT and SIGQUIT.
/// As make does, flowrun then keeps it ignored; its tasks still start with every signal at its
/// default action (docs/processes.md).
int flowrun_ignored_at_start(int sig);

/// Starts `path` with `argv` and `envp` in `directory` (NULL: the parent's own, with no chdir), leading a process group of its own, with
/// `stdin_fd` (/dev/null if -1), `stdout_fd` and `stderr_fd` as its 0, 1 and 2, an empty signal
/// mask and every signal at its default action. Returns 0 and sets `*pid`, or the errno of what failed
/// (a failed exec included: the child reports it before it exits). The child tells the
/// watchdog on `watchdog_fd` (-1 for none) of its group before it execs.
///
/// vfork(2), as posix_spawn does, but with only the system calls a task needs: glibc's
/// posix_spawn also maps a stack per child, asks for the descriptor limit once per file action,
/// and visits all 64 signals in the child, where the parent waits (docs/processes.md).
int flowrun_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                  int stdin_fd, int stdout_fd, int stderr_fd, int watchdog_fd, pid_t *pid);

/// The umask flowrun started with, read before main while the process had one thread (reading
/// it means setting it). libarchive's disk writer sets the umask to 0 for a moment at every
/// entry (`DiskWriter` in FlowActions): what flowrun creates takes its modes from this value
/// (`StartupUmask` in FlowFiles), and each task's child is given it back before it execs.
mode_t flowrun_startup_umask(void);

/// Starts the watchdog, a process that kills every task's process group still running once
/// flowrun is gone, however it died (SIGKILL included): it reads the groups from a pipe whose
/// write end only flowrun holds, and acts at end of file. Sets `*pid` and returns the write
/// end (close-on-exec), or -1 with errno.
int flowrun_watchdog_start(pid_t *pid);

/// Tells the watchdog that the group led by `pid` is over; called before the leader is reaped,
/// while its pid cannot be reused.
void flowrun_watchdog_forget(int watchdog_fd, pid_t pid);

/// Tells the watchdog that flowrun ended the run itself, every process below it killed: it
/// then has no processes to look for by the run's mark.
void flowrun_watchdog_ended_cleanly(int watchdog_fd);

/// The value of `FLOWRUN_RUN_TOKEN` that every task's environment holds, unique to the run
/// (`PID-RANDOM`); NULL before `flowrun_watchdog_start`. A watchdog whose flowrun died kills
/// every process whose environment holds it: a daemon whose parents had all exited is found
/// by nothing else.
const char *flowrun_run_token(void);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): processes orphaned below flowrun (a task's daemon, whose
/// parent has exited) become flowrun's children rather than init's, so that they can be found.
int flowrun_become_subreaper(void);

/// pthread_setname_np for the calling thread (at most 15 bytes), which Swift's Glibc module
/// does not show.
int flowrun_name_thread(const char *name);

/// ferror(stdout): whether a write to stdio's standard output has failed. Swift 6 refuses a
/// reference to the global `stdout`.
int flowrun_stdout_failed(void);

/// pidfd_open(2) (Linux 5.3): a descriptor that polls readable once the child has exited, so
/// one poll loop can wait for output and exits together. -1 with errno (ENOSYS) where missing.
/// Swift cannot call the variadic syscall(2) itself.
int flowrun_pidfd_open(pid_t pid);
/// The pid of a child of flowrun that has exited, left unreaped (waitid WNOWAIT); 0 when none has.
pid_t flowrun_exited_child(void);
/// Reaps `leader`, an exited child of flowrun that leads its own process group, and with it the
/// exited children of flowrun left in that group (leftovers adopted as their subreaper): one
/// waitid(P_PGID) a child, and one more that tells whether a child of flowrun is still in the
/// group. Sets `*status` to the leader's wait status (as waitpid gives it), `*found` to how many
/// other children of flowrun were in the group, `*remaining` to 1 if one still is (running).
/// Returns the leader's pid, 0 if it has not exited, -1 with errno (ECHILD: already reaped).
/// Only with no spawn under way: once the leader is reaped, a new child may take its group's id.
pid_t flowrun_reap_leader(pid_t leader, int *status, int *found, int *remaining);
/// Reaps the exited children of flowrun in process group `group`; 1 if one is still there
/// (running or stopped), 0 if none is.
int flowrun_reap_group(pid_t group);

/// epoll(7) for the output loop, which Swift's Glibc module does not show; `struct epoll_event`
/// is packed on x86_64, so Swift sees only the 64-bit tag each descriptor is added with.
/// EPOLLIN, level-triggered; with `once`, EPOLLONESHOT: reported once, then not again until
/// `flowrun_epoll_rearm`.
int flowrun_epoll_create(void);
int flowrun_epoll_add(int epoll, int fd, uint64_t tag, int once);
int flowrun_epoll_rearm(int epoll, int fd, uint64_t tag);
/// Waits for ready descriptors and writes the tags of up to `capacity` (at most 64) of them to
/// `ready`, and to `ended` for each whether it was reported hung up with nothing to read
/// (EPOLLHUP without EPOLLIN: a pipe whose writers are all gone and which holds nothing);
/// returns how many (0 once `timeout` milliseconds have passed; -1 waits without end), or -1
/// with errno.
int flowrun_epoll_wait(int epoll, uint64_t *ready, uint8_t *ended, int capacity, int timeout);

#endif
