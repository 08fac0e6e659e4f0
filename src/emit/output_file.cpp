// Emit: output files by the policy of docs/hardening.md ("Output files"): atomic replacement,
// write-through to devices, names resolved by the kernel, inputs refused, temporary files removed.
#include "planlayout/emit/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#include "output_signals.hpp"
#include "output_target.hpp"
#include "planlayout/error.hpp"

namespace planlayout {

using output_target::base_of;
using output_target::classify_target;
using output_target::folder_of;
using output_target::io_failure;
using output_target::open_folder_nofollow;
using output_target::OutputFd;
using output_target::resolved_name;
using output_target::same_inode;
using output_target::Target;
using output_signals::register_temporary;
using output_signals::SignalsBlocked;
using output_signals::unregister_temporary;

namespace {

// ---------------------------------------------------------------------------------------------
// Names

constexpr std::size_t kNameMax = NAME_MAX;  // bytes of one path component
constexpr std::string_view kTempMarker = ".tmp.";
constexpr std::size_t kTempRandom = 6;

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

Error not_writable(const std::string& path, int err, bool link) {
    std::string what = "may not be written: " + std::string(std::strerror(err));
    if (link) {
        what += " (a symlink the kernel refuses to follow, fs.protected_symlinks, or a target you may not write)";
    } else {
        what += " (you may not write this file; replacing it would change its owner)";
    }
    return io_error(path, what, "write to a file you may write, e.g. a new name; nothing was written");
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
    std::string shown_temp;   // the temporary file's name for the signal handler (its folder as resolved)
    std::string temp;         // the temporary file's name inside dir (atomic mode)
    std::string base;         // the replaced file's name inside dir
    OutputFd dir;                   // the folder of the replaced file, opened by the kernel (atomic mode)
    OutputFd target;                // the existing file, opened for writing by the kernel (atomic mode)
    struct stat target_st {};
    bool created = false;     // target created here through a dangling symlink
    bool in_place = false;    // its owner cannot be kept by a rename: copied into it at commit
    int fd = -1;              // what the text is written to
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
            ::unlinkat(dir.get(), temp.c_str(), 0);
            unregister_temporary(slot);
            slot = -1;
            temp.clear();
        }
        if (created && !committed && target.valid()) {
            // The empty file made through a dangling link: removed again if it is still ours.
            struct stat now {};
            if (::fstatat(dir.get(), base.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && same_inode(now, target_st) &&
                now.st_size == 0) {
                ::unlinkat(dir.get(), base.c_str(), 0);
            }
            created = false;
        }
    }

    [[nodiscard]] Error failure(const std::string& step, int err) const { return io_failure(path, step, err); }

    void open_target(const Target& t);
    void create_temporary();
    void keep_owner_and_mode();
    void copy_into_target() const;
};

// The folder and name to replace, found by the kernel: a new name's folder is opened as given (the
// kernel follows its links, with fs.protected_symlinks); an existing file, or a dangling link's
// target (created), is opened for writing by the kernel, which refuses a file the caller may not
// write and a link it may not follow; its folder is then reopened from the kernel's own name for
// the file with no symlink allowed on the way, and checked to hold that very file.
void OutputFile::Impl::open_target(const Target& t) {
    if (!t.exists && !t.link) {
        const std::string folder = folder_of(path);
        dir = OutputFd(::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!dir.valid()) {
            throw failure("opening the folder " + folder, errno);
        }
        base = base_of(path);
        shown_temp = folder == "." && path.find('/') == std::string::npos ? std::string() : folder + "/";
        return;
    }
    int flags = O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
    if (!t.exists) {
        flags |= O_CREAT;  // a dangling link: its target is created, as the shell's `>` does
    }
    target = OutputFd(::open(path.c_str(), flags, 0666));
    if (!target.valid()) {
        if (errno == EACCES || errno == EPERM) {
            throw not_writable(path, errno, t.link);
        }
        throw failure("opening", errno);
    }
    created = !t.exists;
    if (::fstat(target.get(), &target_st) != 0 || !S_ISREG(target_st.st_mode)) {
        throw io_error(path, "changed while it was opened (no longer a regular file)", "run the command again; nothing was written");
    }
    const std::string real = resolved_name(target.get(), path);
    dir = open_folder_nofollow(folder_of(real), path);
    base = base_of(real);
    struct stat named {};
    if (::fstatat(dir.get(), base.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 || !same_inode(named, target_st)) {
        throw io_error(path, "changed while it was opened (" + real + " is another file now)",
                       "run the command again; nothing was written");
    }
    shown_temp = folder_of(real) + "/";
}

void OutputFile::Impl::create_temporary() {
    const std::string prefix = temp_name_prefix(base);
    const SignalsBlocked blocked;
    for (std::uint64_t attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        const std::string name = prefix + random_suffix(attempt);
        // 0666: the kernel applies the umask, as for any new file.
        fd = ::openat(dir.get(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd >= 0) {
            temp = name;
            slot = register_temporary(shown_temp + name);
        } else if (errno != EEXIST) {
            throw failure("creating a temporary file", errno);
        }
    }
    if (fd < 0) {
        throw failure("creating a temporary file", EEXIST);
    }
}

// The replaced file keeps its mode and owner. Where the owner cannot be given to the new file (a
// file of another user that this one may write), the text is copied into the file at commit.
void OutputFile::Impl::keep_owner_and_mode() {
    if (!target.valid() || created) {
        return;
    }
    if (target_st.st_uid != ::geteuid() || target_st.st_gid != ::getegid()) {
        in_place = ::fchown(fd, target_st.st_uid, target_st.st_gid) != 0;
    }
    if (::fchmod(fd, target_st.st_mode & 07777U) != 0) {
        const int err = errno;
        remove_temp();
        throw failure("setting the mode", err);
    }
}

// In-place commit: the finished temporary file's bytes into the target (truncated first).
void OutputFile::Impl::copy_into_target() const {
    const int out = target.get();
    if (::lseek(fd, 0, SEEK_SET) != 0 || ::ftruncate(out, 0) != 0) {
        throw failure("rewriting the file in place", errno);
    }
    std::vector<char> chunk(std::size_t{1} << 18U);
    for (;;) {
        const ssize_t n = ::read(fd, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            throw failure("rewriting the file in place (read)", errno);
        }
        if (n == 0) {
            break;
        }
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = ::write(out, chunk.data() + done, static_cast<std::size_t>(n - done));
            if (w < 0 && errno == EINTR) {
                continue;
            }
            if (w < 0) {
                throw failure("rewriting the file in place (write)", errno);
            }
            done += w;
        }
    }
    if (::fsync(out) != 0) {
        throw failure("fsync", errno);
    }
}

OutputFile::OutputFile(const std::string& path, const std::vector<std::string>& inputs) : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.path = path;
    if (path.empty()) {
        throw input_error("-o \"\"", "the output file name is empty", "give a file name, or - for standard output");
    }
    refuse_output_onto_input(path, inputs);
    const Target t = classify_target(path);
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
        try {
            m.open_target(t);
            m.create_temporary();
            m.keep_owner_and_mode();
        } catch (...) {
            m.remove_temp();
            throw;
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
    if (m.in_place) {
        try {
            m.copy_into_target();
        } catch (...) {
            m.remove_temp();
            throw;
        }
        m.remove_temp();  // the temporary file's job is done; the target holds the text
        m.committed = true;
        return;
    }
    const int rc = ::close(m.fd);
    m.fd = -1;
    if (rc != 0) {
        const int err = errno;
        m.remove_temp();
        throw m.failure("close", err);
    }
    if (m.target.valid()) {
        // Still the file that was opened (nobody put another file, or a link, at its name).
        struct stat now {};
        if (::fstatat(m.dir.get(), m.base.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || !same_inode(now, m.target_st)) {
            m.remove_temp();
            throw io_error(m.path, "changed while the output was written (another file is at its name now)",
                           "run the command again; nothing was written");
        }
    }
    const SignalsBlocked blocked;
    if (::renameat(m.dir.get(), m.temp.c_str(), m.dir.get(), m.base.c_str()) != 0) {
        const int err = errno;
        m.remove_temp();
        throw m.failure("rename", err);
    }
    m.committed = true;
    unregister_temporary(m.slot);
    m.slot = -1;
}

void write_file_atomically(const std::string& path, std::string_view content) {
    OutputFile out(path);
    out.write(content);
    out.commit();
}

}  // namespace planlayout
