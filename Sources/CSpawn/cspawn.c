#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "cspawn.h"

int flowrun_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int flowrun_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
