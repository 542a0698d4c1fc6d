#ifndef FLOWRUN_CSPAWN_H
#define FLOWRUN_CSPAWN_H

#include <spawn.h>
#include <sys/types.h>

/// pipe2(fds, O_CLOEXEC): both ends close on exec, atomically, so a child spawned by another
/// thread at the same moment cannot inherit them (and hold a pipe open past its owner's exit).
int flowrun_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addchdir_np, a GNU extension Swift's Glibc module does not show.
int flowrun_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// pidfd_open(2) (Linux 5.3): a descriptor that polls readable once the child has exited, so
/// one poll loop can wait for output and exits together. -1 with errno (ENOSYS) where missing.
/// Swift cannot call the variadic syscall(2) itself.
int flowrun_pidfd_open(pid_t pid);

/// epoll(7) for the output loop, which Swift's Glibc module does not show; `struct epoll_event`
/// is packed on x86_64, so Swift sees descriptors only. Level-triggered, EPOLLIN.
int flowrun_epoll_create(void);
int flowrun_epoll_add(int epoll, int fd);
int flowrun_epoll_remove(int epoll, int fd);
/// Waits for ready descriptors and writes up to `capacity` (at most 64) of them to `ready`;
/// returns how many, or -1 with errno.
int flowrun_epoll_wait(int epoll, int *ready, int capacity);

#endif
