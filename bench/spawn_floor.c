/* The floor of the run benchmark: posix_spawn PROGRAM (default /bin/true) N times, at most
 * JOBS (default 2) in flight, reaping whichever finishes first (waitpid(-1)); the children's
 * stdout and stderr go to /dev/null. No graph, no output handling: the least any runner that
 * spawns one process per task has to pay. Prints "spawned N, failed F"; exits 1 if any child
 * failed, 2 on a usage or spawn error.
 *
 * Usage: spawn_floor N [JOBS [PROGRAM]]    (bench/run_bench.py compiles it into bench/out/)
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s N [JOBS [PROGRAM]]\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    long jobs = argc > 2 ? strtol(argv[2], NULL, 10) : 2;
    char *prog = argc > 3 ? argv[3] : "/bin/true";
    if (n < 0 || jobs < 1) {
        fprintf(stderr, "%s: N must be >= 0 and JOBS >= 1\n", argv[0]);
        return 2;
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *child_argv[] = {prog, NULL};

    long started = 0, done = 0, failed = 0, running = 0;
    while (done < n) {
        while (running < jobs && started < n) {
            pid_t pid;
            int err = posix_spawn(&pid, prog, &fa, NULL, child_argv, environ);
            if (err != 0) {
                fprintf(stderr, "%s: posix_spawn %s: %s\n", argv[0], prog, strerror(err));
                return 2;
            }
            started++;
            running++;
        }
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            perror("waitpid");
            return 2;
        }
        running--;
        done++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    posix_spawn_file_actions_destroy(&fa);
    printf("spawned %ld, failed %ld\n", n, failed);
    return failed ? 1 : 0;
}
