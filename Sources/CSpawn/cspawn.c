#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cspawn.h"

int flowrun_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

/* Signals the child sets back to their default action: every standard one, whose action
 * flowrun or its own parent may have changed (SIGPIPE is ignored, SIGINT and friends blocked),
 * and the realtime ones that are not at their default when the first child starts (nothing in
 * flowrun changes those). glibc's own SIGCANCEL and SIGSETXID (32, 33) are left alone. */
static int reset_signals[64];
static int reset_count;
static pthread_once_t reset_once = PTHREAD_ONCE_INIT;

static void find_reset_signals(void) {
    for (int sig = 1; sig < 32; sig++)
        if (sig != SIGKILL && sig != SIGSTOP) reset_signals[reset_count++] = sig;
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

int flowrun_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                  int stdin_fd, int stdout_fd, int stderr_fd, pid_t *pid) {
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
            || put_descriptor(stderr_fd, 2) != 0 || chdir(directory) != 0)
            goto failed;
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
        /* The child has exited already (the parent resumes at its exec or its exit). */
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        return child_error;
    }
    *pid = child;
    return 0;
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

int flowrun_epoll_add(int epoll, int fd) {
    struct epoll_event event = { .events = EPOLLIN, .data = { .fd = fd } };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int flowrun_epoll_remove(int epoll, int fd) {
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
}

int flowrun_epoll_wait(int epoll, int *ready, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int i = 0; i < count; i++) ready[i] = events[i].data.fd;
    return count;
}
