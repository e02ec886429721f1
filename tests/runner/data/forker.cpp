// Leaves a grandchild that would outlive the run, then loops: the session kill must take both.
#include <cstdio>
#include <unistd.h>
int main() {
    pid_t child = fork();
    if (child == 0) {
        for (;;) pause();
    }
    std::printf("%d\n", static_cast<int>(child));
    std::fflush(stdout);
    for (;;) pause();
}
