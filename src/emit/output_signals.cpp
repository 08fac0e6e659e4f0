// Emit: temporary output files removed on SIGINT, SIGTERM and SIGHUP (src/emit/output_signals.hpp).
#include "output_signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <csignal>
#include <cstring>

namespace planlayout::output_signals {

// ---------------------------------------------------------------------------------------------
// Temporary files removed on SIGINT, SIGTERM and SIGHUP.
//
// The one piece of process-wide state below src/cli (docs/architecture.md, "Rules the code
// keeps"): a signal handler can reach nothing else. The handler only reads fixed buffers and calls
// unlink(2), signal(2) and raise(3), which are async-signal-safe. A slot is filled and the
// handler installed with the signals blocked, so a signal never sees a half-written path.
namespace {

constexpr std::array<int, 3> kCleanupSignals{SIGINT, SIGTERM, SIGHUP};
constexpr std::size_t kSlots = 4;  // temporary files open at once (the CLI has one)

struct TempSlot {
    volatile std::sig_atomic_t used = 0;
    char path[PATH_MAX] = {};
};

struct SignalCleanup {
    std::array<TempSlot, kSlots> slots;
    std::array<struct sigaction, kCleanupSignals.size()> previous{};
    std::array<bool, kCleanupSignals.size()> installed{};
    int active = 0;
};

SignalCleanup& cleanup_state() {
    static SignalCleanup state;  // NOLINT: the documented signal-handler state
    return state;
}

void unlink_registered_temporaries() noexcept {
    SignalCleanup& s = cleanup_state();
    for (auto& slot : s.slots) {
        if (slot.used != 0) {
            ::unlink(slot.path);
        }
    }
}

extern "C" void remove_temporaries_and_reraise(int sig) {
    unlink_registered_temporaries();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

int register_temporary(const std::string& path) {
    SignalCleanup& s = cleanup_state();
    if (path.size() >= PATH_MAX) {
        return -1;
    }
    for (std::size_t i = 0; i < s.slots.size(); ++i) {
        if (s.slots[i].used == 0) {
            std::memcpy(s.slots[i].path, path.c_str(), path.size() + 1);
            s.slots[i].used = 1;
            if (s.active++ == 0) {
                for (std::size_t k = 0; k < kCleanupSignals.size(); ++k) {
                    struct sigaction old {};
                    ::sigaction(kCleanupSignals[k], nullptr, &old);
                    // Leave alone a signal the process ignores (nohup, `cmd &`) or handles itself
                    // (a program embedding the library).
                    s.installed[k] = (old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_DFL;
                    if (s.installed[k]) {
                        struct sigaction act {};
                        act.sa_handler = remove_temporaries_and_reraise;
                        sigemptyset(&act.sa_mask);
                        ::sigaction(kCleanupSignals[k], &act, &s.previous[k]);
                    }
                }
            }
            return static_cast<int>(i);
        }
    }
    return -1;
}

void unregister_temporary(int slot) {
    if (slot < 0) {
        return;
    }
    SignalCleanup& s = cleanup_state();
    s.slots[static_cast<std::size_t>(slot)].used = 0;
    if (--s.active == 0) {
        for (std::size_t k = 0; k < kCleanupSignals.size(); ++k) {
            if (s.installed[k]) {
                ::sigaction(kCleanupSignals[k], &s.previous[k], nullptr);
                s.installed[k] = false;
            }
        }
    }
}

SignalsBlocked::SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : kCleanupSignals) {
        sigaddset(&set, sig);
    }
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
}

SignalsBlocked::~SignalsBlocked() {
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace planlayout::output_signals

namespace planlayout {

void remove_output_temporaries() noexcept {
    output_signals::unlink_registered_temporaries();
}

}  // namespace planlayout
