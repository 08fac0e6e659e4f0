// Emit: the temporary files of OutputFile removed on SIGINT, SIGTERM and SIGHUP (output_signals.cpp
// holds the one piece of process-wide state below src/cli: a signal handler can reach nothing else).
#pragma once

#include <csignal>
#include <string>

namespace planlayout::output_signals {

/// SIGINT, SIGTERM and SIGHUP blocked for the object's life, so a signal never sees a half-written
/// slot.
class SignalsBlocked {
public:
    SignalsBlocked();
    ~SignalsBlocked();

    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;
    SignalsBlocked(SignalsBlocked&&) = delete;
    SignalsBlocked& operator=(SignalsBlocked&&) = delete;

private:
    sigset_t old_{};
};

/// Registers a temporary file (signals blocked by the caller) and installs the handler with the
/// first one. Returns the slot, or -1 when every slot is taken (the file is then only removed by
/// its owner's destructor).
int register_temporary(const std::string& path);

/// Frees the slot (signals blocked by the caller); the last one restores the previous handlers.
void unregister_temporary(int slot);

}  // namespace planlayout::output_signals
