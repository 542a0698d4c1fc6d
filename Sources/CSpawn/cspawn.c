#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cspawn.h"

int flowrun_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int flowrun_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
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

int flowrun_epoll_wait(int epoll, int *ready, int capacity) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, -1);
    for (int i = 0; i < count; i++) ready[i] = events[i].data.fd;
    return count;
}
