// Emit: atomic file writes (temporary file, fsync, rename).
#include "planlayout/emit/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

// Closes and, unless released, unlinks the temporary file: nothing partial survives a failure.
class TempFile {
public:
    explicit TempFile(std::string pattern) : path_(std::move(pattern)) {
        std::vector<char> buf(path_.begin(), path_.end());
        buf.push_back('\0');
        fd_ = ::mkstemp(buf.data());
        path_.assign(buf.data());
    }

    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    TempFile(TempFile&&) = delete;
    TempFile& operator=(TempFile&&) = delete;

    ~TempFile() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        if (!released_) {
            ::unlink(path_.c_str());
        }
    }

    [[nodiscard]] int fd() const { return fd_; }

    [[nodiscard]] const std::string& path() const { return path_; }

    int close_now() {
        const int rc = ::close(fd_);
        fd_ = -1;
        return rc;
    }

    void release() { released_ = true; }

private:
    std::string path_;
    int fd_ = -1;
    bool released_ = false;
};

Error write_failure(const std::string& path, const char* step) {
    return io_error(path, std::string(step) + " failed: " + std::strerror(errno),
                    "check that the folder exists, is writable and has free space");
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    TempFile tmp((dir == "." ? std::string() : dir) + "." + base + ".tmp.XXXXXX");
    if (tmp.fd() < 0) {
        throw write_failure(path, "creating a temporary file");
    }
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(tmp.fd(), content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw write_failure(path, "write");
        }
        done += static_cast<std::size_t>(n);
    }
    ::fchmod(tmp.fd(), 0644);
    if (::fsync(tmp.fd()) != 0) {
        throw write_failure(path, "fsync");
    }
    if (tmp.close_now() != 0) {
        throw write_failure(path, "close");
    }
    if (::rename(tmp.path().c_str(), path.c_str()) != 0) {
        throw write_failure(path, "rename");
    }
    tmp.release();
}

}  // namespace planlayout
