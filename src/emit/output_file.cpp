// Emit: output files by the policy of docs/hardening.md ("Output files"): atomic replacement,
// write-through to devices, symlinks followed, inputs refused, temporary files removed on signals.
#include "planlayout/emit/output_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string_view>

#include "planlayout/error.hpp"

namespace planlayout {

// ---------------------------------------------------------------------------------------------
// FdStreamBuf

FdStreamBuf::FdStreamBuf(int fd, std::size_t buffer_bytes) : fd_(fd), buffer_(buffer_bytes) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
}

bool FdStreamBuf::write_all(const char* p, std::size_t n) {
    if (error_ != 0) {
        return false;
    }
    while (n > 0) {
        const ssize_t w = ::write(fd_, p, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            error_ = errno;
            return false;
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

bool FdStreamBuf::drain() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    const bool ok = write_all(pbase(), n);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
    if (!drain()) {
        return traits_type::eof();
    }
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

int FdStreamBuf::sync() {
    return drain() ? 0 : -1;
}

std::streamsize FdStreamBuf::xsputn(const char* s, std::streamsize n) {
    const auto count = static_cast<std::size_t>(n);
    const auto room = static_cast<std::size_t>(epptr() - pptr());
    if (count <= room) {
        traits_type::copy(pptr(), s, count);
        pbump(static_cast<int>(count));
        return n;
    }
    if (!drain()) {
        return 0;
    }
    if (count <= buffer_.size()) {
        traits_type::copy(pptr(), s, count);
        pbump(static_cast<int>(count));
        return n;
    }
    // Larger than the buffer: the text itself, without copying it.
    return write_all(s, count) ? n : 0;
}

FdOStream::FdOStream(int fd) : std::ostream(nullptr), buf_(fd) {
    rdbuf(&buf_);
}

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

class SignalsBlocked {
public:
    SignalsBlocked() {
        sigset_t set;
        sigemptyset(&set);
        for (const int sig : kCleanupSignals) {
            sigaddset(&set, sig);
        }
        ::pthread_sigmask(SIG_BLOCK, &set, &old_);
    }

    ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;
    SignalsBlocked(SignalsBlocked&&) = delete;
    SignalsBlocked& operator=(SignalsBlocked&&) = delete;

private:
    sigset_t old_{};
};

// Registers a temporary file (signals blocked by the caller). Returns the slot, or -1 when every
// slot is taken (the file is then only removed by the destructor).
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

// ---------------------------------------------------------------------------------------------
// Names

constexpr std::size_t kNameMax = NAME_MAX;  // bytes of one path component
constexpr std::string_view kTempMarker = ".tmp.";
constexpr std::size_t kTempRandom = 6;

std::string folder_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ".NAME.tmp.XXXXXX" within NAME_MAX: a long NAME is cut (on a UTF-8 boundary) to make room.
std::string temp_name_prefix(const std::string& base) {
    const std::size_t room = kNameMax - 1 - kTempMarker.size() - kTempRandom;
    std::string cut = base;
    if (cut.size() > room) {
        std::size_t end = room;
        while (end > 0 && (static_cast<unsigned char>(cut[end]) & 0xC0U) == 0x80U) {
            --end;  // do not split a multi-byte character
        }
        cut.resize(end);
    }
    return "." + cut + std::string(kTempMarker);
}

// Six letters and digits, different on every call of the process and across processes.
std::string random_suffix(std::uint64_t attempt) {
    static constexpr std::string_view kChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    std::uint64_t x = (static_cast<std::uint64_t>(ts.tv_nsec) ^ (static_cast<std::uint64_t>(ts.tv_sec) << 30U)) +
                      (static_cast<std::uint64_t>(::getpid()) << 40U) + attempt * 0x9E3779B97F4A7C15ULL;
    std::string s;
    for (std::size_t i = 0; i < kTempRandom; ++i) {
        x ^= x >> 33U;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33U;
        s += kChars[x % kChars.size()];
    }
    return s;
}

Error io_failure(const std::string& path, const std::string& step, int err) {
    return io_error(path, step + " failed: " + std::strerror(err),
                    "check that the folder exists, is writable and has free space");
}

struct Target {
    std::string final_path;      // after following symlinks
    bool through_proc = false;   // a /proc magic link on the way (/dev/stdout, /dev/fd/N)
    bool exists = false;
    struct stat st {};
};

// Follows symlinks to the final name (which may not exist yet: a dangling link is created).
Target resolve_target(const std::string& path) {
    Target t;
    std::string p = path;
    for (int hop = 0; hop < 40; ++hop) {
        if (p.rfind("/proc/", 0) == 0) {
            t.through_proc = true;
        }
        struct stat lst {};
        if (::lstat(p.c_str(), &lst) != 0) {
            if (errno == ENOENT) {
                t.final_path = p;
                return t;
            }
            throw io_failure(path, "looking up the output", errno);
        }
        if (!S_ISLNK(lst.st_mode)) {
            t.final_path = p;
            t.exists = true;
            t.st = lst;
            return t;
        }
        if (!t.through_proc) {
            // A link inside /proc, also when reached through another link (/dev/fd/N).
            std::unique_ptr<char, decltype(&std::free)> real(::realpath(folder_of(p).c_str(), nullptr), &std::free);
            t.through_proc = real && std::string_view(real.get()).rfind("/proc/", 0) == 0;
        }
        std::array<char, PATH_MAX> buf{};
        const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
        if (n < 0) {
            throw io_failure(path, "reading the symlink " + p, errno);
        }
        const std::string target(buf.data(), static_cast<std::size_t>(n));
        if (t.through_proc) {
            // A magic link ("pipe:[123]", a deleted file, ...): not a name to rename onto.
            t.final_path = path;
            t.exists = ::stat(path.c_str(), &t.st) == 0;
            return t;
        }
        p = target.front() == '/' ? target : folder_of(p) + "/" + target;
    }
    throw io_error(path, "too many levels of symbolic links", "point the link at a file");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Same file as an input

void refuse_output_onto_input(const std::string& output, const std::vector<std::string>& inputs, const std::string& flag) {
    struct stat out {};
    if (output.empty() || output == "-" || ::stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) {
        return;
    }
    for (const auto& in : inputs) {
        struct stat st {};
        if (in.empty() || in == "-" || ::stat(in.c_str(), &st) != 0) {
            continue;
        }
        if (st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
            throw input_error(flag + " " + output,
                              in == output ? "is also an input of this command"
                                           : "is the same file as the input " + in,
                              "write the output to another file; nothing was written");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// OutputFile

struct OutputFile::Impl {
    std::string path;         // as given
    std::string target;       // the file replaced (symlinks followed)
    std::string temp;         // temporary file (atomic mode)
    int fd = -1;
    int slot = -1;            // signal-cleanup slot
    bool through = false;
    bool committed = false;
    std::unique_ptr<FdStreamBuf> buf;
    std::unique_ptr<std::ostream> os;

    void remove_temp() {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
        if (!temp.empty() && !committed) {
            const SignalsBlocked blocked;
            ::unlink(temp.c_str());
            unregister_temporary(slot);
            slot = -1;
        }
    }

    [[nodiscard]] Error failure(const std::string& step, int err) const { return io_failure(path, step, err); }
};

OutputFile::OutputFile(const std::string& path, const std::vector<std::string>& inputs) : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.path = path;
    if (path.empty()) {
        throw input_error("-o \"\"", "the output file name is empty", "give a file name, or - for standard output");
    }
    refuse_output_onto_input(path, inputs);
    const Target t = resolve_target(path);
    m.target = t.final_path;
    if (t.exists && S_ISDIR(t.st.st_mode)) {
        throw io_error(path, "is a folder, not a file", "name a file inside it, e.g. " + path + "/out.json");
    }
    if (t.exists && (S_ISBLK(t.st.st_mode) || S_ISSOCK(t.st.st_mode))) {
        throw input_error(path, S_ISBLK(t.st.st_mode) ? "is a block device" : "is a socket",
                          "write to a regular file, a FIFO or a character device such as /dev/null");
    }
    m.through = t.through_proc || (t.exists && (S_ISCHR(t.st.st_mode) || S_ISFIFO(t.st.st_mode)));
    if (m.through) {
        int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
        if (t.exists && S_ISREG(t.st.st_mode)) {
            flags |= O_APPEND;  // a file behind /dev/stdout: the shell opened it; append, never truncate
        }
        m.fd = ::open(path.c_str(), flags);
        if (m.fd < 0) {
            throw m.failure("opening", errno);
        }
    } else {
        const std::string folder = folder_of(m.target);
        const std::string prefix = (folder == "." && m.target.find('/') == std::string::npos ? std::string() : folder + "/") +
                                   temp_name_prefix(base_of(m.target));
        const SignalsBlocked blocked;
        for (std::uint64_t attempt = 0; attempt < 100 && m.fd < 0; ++attempt) {
            const std::string name = prefix + random_suffix(attempt);
            // 0666: the kernel applies the umask, as for any new file.
            m.fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
            if (m.fd >= 0) {
                m.temp = name;
                m.slot = register_temporary(name);
            } else if (errno != EEXIST) {
                throw m.failure("creating a temporary file", errno);
            }
        }
        if (m.fd < 0) {
            throw m.failure("creating a temporary file", EEXIST);
        }
        if (t.exists) {
            // Keep the replaced file's owner (where allowed) and mode.
            if (t.st.st_uid != ::geteuid() || t.st.st_gid != ::getegid()) {
                (void)::fchown(m.fd, t.st.st_uid, t.st.st_gid);
            }
            if (::fchmod(m.fd, t.st.st_mode & 07777U) != 0) {
                const int err = errno;
                m.remove_temp();
                throw m.failure("setting the mode", err);
            }
        }
    }
    m.buf = std::make_unique<FdStreamBuf>(m.fd, std::size_t{1} << 18U);
    m.os = std::make_unique<std::ostream>(m.buf.get());
}

OutputFile::~OutputFile() {
    if (impl_) {
        impl_->remove_temp();
    }
}

std::ostream& OutputFile::stream() {
    return *impl_->os;
}

void OutputFile::write(std::string_view text) {
    impl_->os->write(text.data(), static_cast<std::streamsize>(text.size()));
}

const std::string& OutputFile::path() const {
    return impl_->path;
}

bool OutputFile::writes_through() const {
    return impl_->through;
}

void OutputFile::commit() {
    Impl& m = *impl_;
    if (m.committed) {
        return;
    }
    m.os->flush();
    if (!*m.os) {
        const int err = m.buf->error() != 0 ? m.buf->error() : EIO;
        m.remove_temp();
        throw m.failure("write", err);
    }
    if (m.through) {
        const int rc = ::close(m.fd);
        m.fd = -1;
        m.committed = true;
        if (rc != 0) {
            throw m.failure("close", errno);
        }
        return;
    }
    if (::fsync(m.fd) != 0) {
        const int err = errno;
        m.remove_temp();
        throw m.failure("fsync", err);
    }
    const int rc = ::close(m.fd);
    m.fd = -1;
    if (rc != 0) {
        const int err = errno;
        m.remove_temp();
        throw m.failure("close", err);
    }
    const SignalsBlocked blocked;
    if (::rename(m.temp.c_str(), m.target.c_str()) != 0) {
        const int err = errno;
        m.remove_temp();
        throw m.failure("rename", err);
    }
    m.committed = true;
    unregister_temporary(m.slot);
    m.slot = -1;
}

void remove_output_temporaries() noexcept {
    unlink_registered_temporaries();
}

void write_file_atomically(const std::string& path, std::string_view content) {
    OutputFile out(path);
    out.write(content);
    out.commit();
}

}  // namespace planlayout
