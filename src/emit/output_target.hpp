// Emit: what an output name is, for OutputFile (output_file.cpp): the final target's type found
// read-only, a folder reopened with no symlink on the way, the kernel's own name for an open file,
// and two output names compared as files.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "planlayout/error.hpp"

namespace planlayout::output_target {

/// A file descriptor that closes itself.
class OutputFd {
public:
    OutputFd() = default;
    explicit OutputFd(int fd) : fd_(fd) {}
    ~OutputFd() { reset(); }
    OutputFd(const OutputFd&) = delete;
    OutputFd& operator=(const OutputFd&) = delete;
    OutputFd(OutputFd&& o) noexcept : fd_(o.release()) {}
    OutputFd& operator=(OutputFd&& o) noexcept {
        if (this != &o) {
            reset(o.release());
        }
        return *this;
    }
    [[nodiscard]] int get() const { return fd_; }
    [[nodiscard]] bool valid() const { return fd_ >= 0; }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd = -1) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

struct Target {
    bool through_proc = false;   // a /proc magic link on the way (/dev/stdout, /dev/fd/N)
    bool exists = false;         // the final target exists (stat(2) through the links)
    bool link = false;           // the name itself is a symlink
    struct stat st {};           // the final target's
};

/// The folder part of a path ("." for a bare name, "/" for a name in the root).
[[nodiscard]] std::string folder_of(const std::string& path);

/// The last component of a path.
[[nodiscard]] std::string base_of(const std::string& path);

/// Error (Io, exit 3) "PATH: STEP failed: <the system's reason>; check that the folder ...".
[[nodiscard]] Error io_failure(const std::string& path, const std::string& step, int err);

/// What the name is, for the policy: the final target's type and whether a /proc magic link is on
/// the way. Read-only: the output is opened by the kernel's own resolution, never through a path
/// assembled here, so fs.protected_symlinks and the permissions of every folder on the way apply
/// as they do to the shell's `>`.
[[nodiscard]] Target classify_target(const std::string& path);

[[nodiscard]] bool same_inode(const struct stat& a, const struct stat& b);

/// The folder at an absolute path with no symlink in it, one component at a time (openat with
/// O_NOFOLLOW): a component that became a symlink since the kernel resolved the path fails.
[[nodiscard]] OutputFd open_folder_nofollow(const std::string& abs, const std::string& shown);

/// The name the kernel resolved an open fd to (readlink of /proc/self/fd/N): absolute, no symlinks.
[[nodiscard]] std::string resolved_name(int fd, const std::string& shown);

}  // namespace planlayout::output_target
