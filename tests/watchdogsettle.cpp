// Linked into every Qt Test suite (ss_add_qtest). Qt 6.4's Qt Test runs each suite beside a watchdog QThread
// ("QtTest Watchdog"). QTest::qExec returns once that thread has finished its work, but the thread may still be
// exiting: its QThreadData (152 bytes, allocated in QThreadPrivate's constructor) is released by the thread's own
// thread-local destructor. When the process reaches LeakSanitizer's exit-time check first, the block is held
// only by a thread being torn down and is reported as a direct leak from libQt6Core (seen in CI on tst_cli under
// scripts/test-sanitize.sh). This object's destructor runs at exit, before the sanitizer's check, and waits until
// no watchdog thread is left in /proc/self/task (at most 5 s), so the check sees what the program really holds.
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <unistd.h>

namespace {

bool watchdogThreadAlive()
{
    DIR* tasks = opendir("/proc/self/task");
    if (!tasks)
        return false;
    bool alive = false;
    while (const dirent* e = readdir(tasks)) {
        if (e->d_name[0] == '.')
            continue;
        char path[300];
        std::snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (FILE* f = std::fopen(path, "r")) {
            char name[32] = {};
            if (std::fgets(name, sizeof name, f) && std::strncmp(name, "QtTest Watchdog", 15) == 0)
                alive = true;
            std::fclose(f);
        }
    }
    closedir(tasks);
    return alive;
}

struct SettleWatchdogAtExit {
    ~SettleWatchdogAtExit()
    {
        for (int i = 0; i < 500 && watchdogThreadAlive(); ++i)
            usleep(10000);
    }
} settleWatchdogAtExit;

} // namespace
