#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clinux.h"

int flowrun_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

static mode_t startup_umask;

/* Before main, while the process has one thread, so that no other thread sees the 0. */
__attribute__((constructor)) static void read_startup_umask(void) {
    startup_umask = umask(0);
    umask(startup_umask);
}

mode_t flowrun_startup_umask(void) {
    return startup_umask;
}

/* SIGHUP, SIGINT, SIGQUIT and SIGTERM as flowrun's parent left them: ignored (nohup, `cmd &`
 * in a non-interactive sh) or not. Read before main, before anything could change them. */
static int ignored_at_start[32];

__attribute__((constructor)) static void read_ignored_at_start(void) {
    int kept[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        struct sigaction current;
        ignored_at_start[kept[i]] = sigaction(kept[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN;
    }
}

int flowrun_ignored_at_start(int sig) {
    return sig > 0 && sig < 32 && ignored_at_start[sig];
}

/* Signals the child sets back to their default action: those whose action flowrun or its own
 * parent may change (SIGPIPE is ignored, SIGHUP ignored by nohup, SIGINT and SIGQUIT by `cmd &`,
 * SIGCHLD set back by the shell runner), and every other one, standard or realtime, that is not at
 * its default when the first child starts (the Swift runtime's crash handlers, an ignore flowrun's
 * parent left). One at its default needs nothing: execve keeps an ignored signal ignored and sets
 * a handled one back itself, and the child's signals are blocked until these are reset. That
 * is 6-10 calls a spawn rather than 29, on the loop that vfork holds until the child's execve.
 * glibc's own SIGCANCEL and SIGSETXID (32, 33) are left alone. */
static int reset_signals[64];
static int reset_count;
static pthread_once_t reset_once = PTHREAD_ONCE_INIT;

static void find_reset_signals(void) {
    int changeable[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD };
    for (int sig = 1; sig < 32; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        int reset = 0;
        for (size_t i = 0; i < sizeof changeable / sizeof changeable[0]; i++) reset |= changeable[i] == sig;
        struct sigaction current;
        if (!reset) reset = sigaction(sig, NULL, &current) != 0 || current.sa_handler != SIG_DFL;
        if (reset) reset_signals[reset_count++] = sig;
    }
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
        struct sigaction current;
        if (sigaction(sig, NULL, &current) == 0 && current.sa_handler != SIG_DFL)
            reset_signals[reset_count++] = sig;
    }
}

/* dup2, or, when the descriptor is already in place, only clearing its close-on-exec flag. */
static int put_descriptor(int fd, int target) {
    if (fd != target) return dup2(fd, target) < 0 ? -1 : 0;
    int flags = fcntl(fd, F_GETFD);
    return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}

/* Tells the watchdog of a process group: its leader's pid to watch it, minus that to forget it. */
static void tell_watchdog(int watchdog_fd, pid_t record) {
    if (watchdog_fd < 0) return;
    int32_t value = (int32_t)record;
    ssize_t written;
    while ((written = write(watchdog_fd, &value, sizeof value)) < 0 && errno == EINTR) {}
    /* A watchdog someone killed: the SIGPIPE is pending in the vfork child, whose signals are
     * blocked, and would kill it once unblocked. Ignoring it again discards it. */
    if (written < 0 && errno == EPIPE) {
        struct sigaction ignore = { .sa_handler = SIG_IGN };
        sigaction(SIGPIPE, &ignore, NULL);
    }
}

int flowrun_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                  int stdin_fd, int stdout_fd, int stderr_fd, int watchdog_fd, pid_t *pid) {
    pthread_once(&reset_once, find_reset_signals);
    /* The child shares this thread's memory until it execs: no signal handler may run in it,
     * so every signal stays blocked until the child has reset the actions. */
    sigset_t all, saved_mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved_mask);

    volatile int child_error = 0;
    pid_t child = vfork();
    if (child == 0) {
        /* The child: system calls only, on the parent's memory, until execve; it writes no
         * variable of the parent's but child_error (and errno, which it shares with the parent
         * thread; the parent reads errno only when vfork itself failed). */
        /* Close-on-exec: dup2 makes fd 0 without it, and put_descriptor clears it when the
         * open lands on 0 itself. */
        int child_stdin = stdin_fd >= 0 ? stdin_fd : open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (setpgid(0, 0) != 0 || child_stdin < 0 || put_descriptor(child_stdin, 0) != 0 || put_descriptor(stdout_fd, 1) != 0
            || put_descriptor(stderr_fd, 2) != 0 || (directory != NULL && chdir(directory) != 0))
            goto failed;
        /* The umask flowrun started with: the child inherited whatever the process had at the
         * vfork, 0 if it came while libarchive read the umask on another thread (a task's
         * `touch out` then made it 0666). */
        umask(startup_umask);
        /* Told by the child itself, before it runs anything, so that no moment is left
         * when a SIGKILLed flowrun would leave an untold group behind. */
        tell_watchdog(watchdog_fd, getpid());
        struct sigaction fallback = { .sa_handler = SIG_DFL };
        for (int i = 0; i < reset_count; i++) sigaction(reset_signals[i], &fallback, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
    failed:
        child_error = errno;
        _exit(127);
    }
    int spawn_error = child < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
    if (spawn_error != 0) return spawn_error;
    if (child_error != 0) {
        /* The child has exited already (the parent resumes at its exec or its exit); its
         * pid is forgotten before it is reaped and can be reused. */
        tell_watchdog(watchdog_fd, -child);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        return child_error;
    }
    *pid = child;
    return 0;
}

void flowrun_watchdog_forget(int watchdog_fd, pid_t pid) {
    tell_watchdog(watchdog_fd, -pid);
}

void flowrun_watchdog_ended_cleanly(int watchdog_fd) {
    tell_watchdog(watchdog_fd, 0);
}

/* The watchdog's groups, in memory of its own (mmap: the watchdog may be forked from a
 * process with threads, so it uses no malloc). */
static pid_t *watched;
static size_t watched_count, watched_capacity;

static void watch_group(pid_t leader) {
    if (watched_count == watched_capacity) {
        size_t capacity = watched_capacity ? watched_capacity * 2 : 1024;
        pid_t *grown = mmap(NULL, capacity * sizeof(pid_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (grown == MAP_FAILED) return;
        if (watched) {
            memcpy(grown, watched, watched_count * sizeof(pid_t));
            munmap(watched, watched_capacity * sizeof(pid_t));
        }
        watched = grown;
        watched_capacity = capacity;
    }
    watched[watched_count++] = leader;
}

static void forget_group(pid_t leader) {
    for (size_t i = watched_count; i > 0; i--) {
        if (watched[i - 1] == leader) {
            watched[i - 1] = watched[--watched_count];
            return;
        }
    }
}

/* One process as /proc tells it. */
struct proc_entry {
    pid_t pid, ppid, pgid;
    int below;
};

/* Opens /proc/PID/NAME for reading (`pid_text` as /proc lists it); -1 if it cannot. */
static int open_proc_file(const char *pid_text, const char *name) {
    char path[64];
    size_t length = strlen(pid_text), name_length = strlen(name);
    if (length > 20 || name_length > 20) return -1;
    memcpy(path, "/proc/", 6);
    memcpy(path + 6, pid_text, length);
    path[6 + length] = '/';
    memcpy(path + 7 + length, name, name_length + 1);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Calls `visit` with each process's pid as /proc lists it (its entries that are numbers). Uses
 * getdents64 on a stack buffer: the watchdog may be forked from a process with threads, so it
 * uses no malloc (readdir's buffer). */
static void each_process(void (*visit)(const char *pid_text, void *context), void *context) {
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return;
    char buffer[16384];
    long got;
    while ((got = syscall(SYS_getdents64, dir, buffer, sizeof buffer)) > 0) {
        for (long offset = 0; offset < got;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *record =
                (void *)(buffer + offset);
            offset += record->reclen;
            if (record->name[0] >= '1' && record->name[0] <= '9') visit(record->name, context);
        }
    }
    close(dir);
}

/* The pid, parent and group of /proc/PID/stat: "PID (COMM) STATE PPID PGRP ...", where COMM
 * may hold spaces and parentheses, so the fields are read after its last ')'. */
static int read_proc_entry(const char *pid_text, struct proc_entry *entry) {
    char text[512];
    int fd = open_proc_file(pid_text, "stat");
    if (fd < 0) return -1;
    ssize_t count = read(fd, text, sizeof text - 1);
    close(fd);
    if (count <= 0) return -1;
    text[count] = 0;
    char *close_paren = strrchr(text, ')');
    if (!close_paren || close_paren[1] != ' ' || !close_paren[2] || close_paren[3] != ' ') return -1;
    char *end;
    long ppid = strtol(close_paren + 4, &end, 10);
    if (*end != ' ') return -1;
    long pgid = strtol(end + 1, &end, 10);
    entry->pid = (pid_t)atol(pid_text);
    entry->ppid = (pid_t)ppid;
    entry->pgid = (pid_t)pgid;
    entry->below = 0;
    return 0;
}

/* The run's mark, `FLOWRUN_RUN_TOKEN=PID-RANDOM` with a NUL before and after: every task's
 * environment holds it, and so do the environments of whatever its processes start (a daemon
 * made with a double fork and setsid included), whose parents may all have exited. Made before
 * the fork, so the watchdog knows it too. */
static char run_mark[96];
static size_t run_mark_length;

const char *flowrun_run_token(void) {
    return run_mark_length ? run_mark + 1 + strlen("FLOWRUN_RUN_TOKEN=") : NULL;
}

static void make_run_mark(void) {
    uint64_t random_bits = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &random_bits, sizeof random_bits) != (ssize_t)sizeof random_bits) random_bits = 0;
        close(fd);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    random_bits ^= (uint64_t)now.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)now.tv_sec;
    int length = snprintf(run_mark + 1, sizeof run_mark - 2, "FLOWRUN_RUN_TOKEN=%d-%016llx", (int)getpid(),
                          (unsigned long long)random_bits);
    run_mark[0] = 0;
    run_mark_length = (size_t)length + 2; /* both NULs */
}

/* Whether /proc/PID/environ holds the run's mark as a whole entry. Read in chunks, keeping the
 * end of each so that a mark across two reads is found; the NUL before the first entry is
 * pretended. */
static int has_run_mark(const char *pid_text) {
    char buffer[65536];
    int fd = open_proc_file(pid_text, "environ");
    if (fd < 0) return 0;
    size_t kept = 1;
    buffer[0] = 0;
    int found = 0;
    for (;;) {
        ssize_t count = read(fd, buffer + kept, sizeof buffer - kept);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        size_t total = kept + (size_t)count;
        if (memmem(buffer, total, run_mark, run_mark_length)) {
            found = 1;
            break;
        }
        kept = total < run_mark_length - 1 ? total : run_mark_length - 1;
        memmove(buffer, buffer + total - kept, kept);
    }
    close(fd);
    return found;
}

/* Kills every process whose environment holds the run's mark, until a pass finds none (one
 * may fork while it is looked for). A process whose parents had all exited before flowrun died
 * is init's now, out of reach of the parents' walk: this finds it. */
static void kill_if_marked(const char *pid_text, void *killed) {
    pid_t pid = (pid_t)atol(pid_text);
    if (pid != getpid() && has_run_mark(pid_text) && kill(pid, SIGKILL) == 0) *(int *)killed = 1;
}

static void kill_marked(void) {
    for (int pass = 0; pass < 16; pass++) {
        int killed = 0;
        each_process(kill_if_marked, &killed);
        if (!killed) return;
    }
}

static int is_watched(pid_t group) {
    for (size_t i = 0; i < watched_count; i++)
        if (watched[i] == group) return 1;
    return 0;
}

/* Every process /proc lists, in memory of the watchdog's own (mmap, grown by doubling). */
struct process_table {
    struct proc_entry *all;
    size_t count, capacity;
};

static void add_process(const char *pid_text, void *context) {
    struct process_table *table = context;
    if (table->count == table->capacity) {
        size_t grown_capacity = table->capacity ? table->capacity * 2 : 1024;
        struct proc_entry *grown = mmap(NULL, grown_capacity * sizeof *grown, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (grown == MAP_FAILED) return;
        if (table->all) {
            memcpy(grown, table->all, table->count * sizeof *grown);
            munmap(table->all, table->capacity * sizeof *grown);
        }
        table->all = grown;
        table->capacity = grown_capacity;
    }
    if (read_proc_entry(pid_text, &table->all[table->count]) == 0) table->count++;
}

/* Kills the processes that left a watched group (setsid, set -m) while a process of the task
 * is still their parent or grandparent: found through the parents in /proc before any group is
 * killed (a process whose parent dies goes to init, out of reach). One whose parents had all
 * exited before flowrun died was flowrun's (the subreaper's), and is init's now: not found. */
static void kill_below_watched(void) {
    if (watched_count == 0) return; /* no group watched (none ran, or each was forgotten): none to look below */
    struct process_table table = {0};
    each_process(add_process, &table);
    struct proc_entry *all = table.all;
    size_t count = table.count, capacity = table.capacity;
    for (size_t i = 0; i < count; i++) all[i].below = is_watched(all[i].pgid);
    /* Marked from parent to child, as many rounds as the tree is deep. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < count; i++) {
            if (all[i].below) continue;
            for (size_t j = 0; j < count; j++) {
                if (all[j].below && all[j].pid == all[i].ppid) {
                    all[i].below = 1;
                    changed = 1;
                    break;
                }
            }
        }
    }
    pid_t self = getpid();
    for (size_t i = 0; i < count; i++)
        if (all[i].below && !is_watched(all[i].pgid) && all[i].pid != self) kill(all[i].pid, SIGKILL);
    if (all) munmap(all, capacity * sizeof *all);
}

/* The watchdog's name and command line, as ps, pkill and pgrep -f see them. Those of flowrun,
 * which the fork gives it, made `pkill -9 flowrun` and `pkill -9 -f 'flowrun flow.yaml'` kill the
 * watchdog together with flowrun: the one moment it is there for, and every task outlived the
 * run. The argument area (from argv[0], glibc's program_invocation_name) is this process's own
 * copy since the fork: overwritten in place. */
static void retitle(const char *title) {
    prctl(PR_SET_NAME, title, 0, 0, 0);
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    size_t length = 0;
    char chunk[4096];
    ssize_t got;
    while ((got = read(fd, chunk, sizeof chunk)) > 0) length += (size_t)got;
    close(fd);
    if (!program_invocation_name || length < 2) return;
    size_t kept = strlen(title);
    if (kept > length - 1) kept = length - 1;
    memset(program_invocation_name, 0, length);
    memcpy(program_invocation_name, title, kept);
}

/* The watchdog process: reads records until every write end is closed, which happens only
 * when flowrun has exited (however it died), then kills the groups still watched. */
static void _Noreturn watchdog_main(int records) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    setsid();  /* out of flowrun's group and terminal: a kill of the job or a hang-up spares it */
    retitle("flow-watchdog");
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0); dup2(null, 1); dup2(null, 2);
    }
    if (records != 3) {
        dup2(records, 3);
        records = 3;
    }
    /* No other descriptor of flowrun's (a stdout pipe, the write end) stays open in here. */
    long closed = -1;
#ifdef SYS_close_range
    closed = syscall(SYS_close_range, 4, ~0U, 0);
#endif
    if (closed != 0) {
        long limit = sysconf(_SC_OPEN_MAX);
        for (int fd = 4; fd < (limit > 0 && limit < 65536 ? limit : 65536); fd++) close(fd);
    }
    int32_t buffer[256];
    /* A task was spawned (its processes carry the run's mark), and flowrun did not say that it
     * ended the run itself, having killed every process below it. */
    int spawned = 0, ended_cleanly = 0;
    for (;;) {
        ssize_t count = read(records, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        /* Each record is one write of 4 bytes, under PIPE_BUF: it arrives whole. */
        for (ssize_t i = 0; i < count / (ssize_t)sizeof(int32_t); i++) {
            if (buffer[i] > 0) {
                watch_group(buffer[i]);
                spawned = 1;
            } else if (buffer[i] == 0) {
                ended_cleanly = 1;
            } else {
                forget_group(-buffer[i]);
            }
        }
        /* Records are read a batch at a time rather than woken for each: two per task would
         * take a core from the tasks on a run of small ones. The pipe holds 16k records: at
         * 50 ms apart, 2,500 tasks a second (a dag of `true`) leave it under a twentieth full,
         * and the groups of a SIGKILLed flowrun die at most 50 ms later (20 ms woke this
         * process 50 times a second of a run: issue 23, s31-dag2). */
        struct timespec pause = { .tv_sec = 0, .tv_nsec = 50 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    kill_below_watched();
    for (size_t i = 0; i < watched_count; i++) kill(-watched[i], SIGKILL);
    if (spawned && !ended_cleanly) kill_marked();
    _exit(0);
}

int flowrun_watchdog_start(pid_t *pid) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    make_run_mark();
    pid_t child = fork();
    if (child == 0) {
        close(fds[1]);
        watchdog_main(fds[0]);
    }
    int saved = errno;
    close(fds[0]);
    if (child < 0) {
        close(fds[1]);
        errno = saved;
        return -1;
    }
    *pid = child;
    return fds[1];
}

int flowrun_name_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int flowrun_stdout_failed(void) {
    return ferror(stdout);
}

int flowrun_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int flowrun_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int flowrun_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int flowrun_epoll_add(int epoll, int fd, uint64_t tag, int once) {
    struct epoll_event event = { .events = EPOLLIN | (once ? EPOLLONESHOT : 0), .data = { .u64 = tag } };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int flowrun_epoll_rearm(int epoll, int fd, uint64_t tag) {
    struct epoll_event event = { .events = EPOLLIN | EPOLLONESHOT, .data = { .u64 = tag } };
    return epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event);
}

int flowrun_epoll_wait(int epoll, uint64_t *ready, uint8_t *ended, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int i = 0; i < count; i++) {
        ready[i] = events[i].data.u64;
        // A pipe's mask is taken as the wait returns: EPOLLIN whenever it holds a byte.
        ended[i] = (events[i].events & EPOLLHUP) && !(events[i].events & EPOLLIN);
    }
    return count;
}

pid_t flowrun_exited_child(void) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    while (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        if (errno != EINTR) return 0;
    return info.si_pid;
}

/* A wait status as waitpid(2) gives it, from waitid's report of an exit. */
static int wait_status_of(const siginfo_t *info) {
    switch (info->si_code) {
    case CLD_EXITED: return (info->si_status & 0xff) << 8;
    case CLD_DUMPED: return (info->si_status & 0x7f) | 0x80;
    default: return info->si_status & 0x7f; /* CLD_KILLED */
    }
}

/* Reaps one exited child of flowrun in process group `group` into *info: its pid; 0 when the
 * group still holds a child of flowrun that has not exited; -1 when it holds none (ECHILD). */
static pid_t reap_one_in_group(pid_t group, siginfo_t *info) {
    for (;;) {
        memset(info, 0, sizeof *info);
        if (waitid(P_PGID, (id_t)group, info, WEXITED | WNOHANG) == 0) return info->si_pid;
        if (errno != EINTR) return -1;
    }
}

pid_t flowrun_reap_leader(pid_t leader, int *status, int *found, int *remaining) {
    pid_t reaped = 0;
    *found = 0;
    *remaining = 0;
    for (;;) {
        siginfo_t info;
        pid_t pid = reap_one_in_group(leader, &info);
        if (pid < 0) break; /* no child of flowrun is left in the group */
        if (pid == 0) {
            *remaining = 1;
            break;
        }
        if (pid == leader) {
            reaped = leader;
            *status = wait_status_of(&info);
        } else {
            *found += 1;
        }
    }
    if (reaped) return reaped;
    /* The leader moved to another group (setpgid): reaped by its pid. */
    do reaped = waitpid(leader, status, WNOHANG); while (reaped == -1 && errno == EINTR);
    return reaped;
}

int flowrun_reap_group(pid_t group) {
    siginfo_t info;
    pid_t pid;
    while ((pid = reap_one_in_group(group, &info)) > 0) continue;
    return pid == 0;
}
