// Emit: what an output name is (output_target.hpp), and same_output_file.
#include "output_target.hpp"

#include <fcntl.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <tuple>

#include "planlayout/emit/output_file.hpp"

namespace planlayout {
namespace output_target {

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

Error io_failure(const std::string& path, const std::string& step, int err) {
    return io_error(path, step + " failed: " + std::strerror(err),
                    "check that the folder exists, is writable and has free space");
}

Target classify_target(const std::string& path) {
    Target t;
    std::string p = path;
    for (int hop = 0; hop < 40; ++hop) {
        if (p.rfind("/proc/", 0) == 0) {
            t.through_proc = true;
        }
        struct stat lst {};
        if (::lstat(p.c_str(), &lst) != 0) {
            if (errno == ENOENT) {
                return t;
            }
            throw io_failure(path, "looking up the output", errno);
        }
        if (hop == 0) {
            t.link = S_ISLNK(lst.st_mode);
        }
        if (!S_ISLNK(lst.st_mode)) {
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
            // A magic link ("pipe:[123]", a deleted file, ...): its target is what stat(2) finds.
            t.exists = ::stat(path.c_str(), &t.st) == 0;
            return t;
        }
        p = target.front() == '/' ? target : folder_of(p) + "/" + target;
    }
    throw io_error(path, "too many levels of symbolic links", "point the link at a file");
}

bool same_inode(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

OutputFd open_folder_nofollow(const std::string& abs, const std::string& shown) {
    OutputFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) {
        throw io_failure(shown, "opening /", errno);
    }
    std::size_t pos = 1;
    while (pos < abs.size()) {
        const std::size_t slash = abs.find('/', pos);
        const std::string part = abs.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
        pos = slash == std::string::npos ? abs.size() : slash + 1;
        if (part.empty()) {
            continue;
        }
        OutputFd next(::openat(dir.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.valid()) {
            throw io_failure(shown, "opening the folder " + abs + " (it changed while the output was opened?)", errno);
        }
        dir = std::move(next);
    }
    return dir;
}

std::string resolved_name(int fd, const std::string& shown) {
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    std::array<char, PATH_MAX> buf{};
    const ssize_t n = ::readlink(link.c_str(), buf.data(), buf.size() - 1);
    if (n <= 0 || buf[0] != '/') {
        throw io_error(shown, "cannot tell which file the output is (reading " + link + " failed)",
                       "mount /proc, or give -o the file itself rather than a symlink; nothing was written");
    }
    return {buf.data(), static_cast<std::size_t>(n)};
}

}  // namespace output_target

using output_target::base_of;
using output_target::folder_of;

namespace {

// What a name would write: the file (device, inode) where it exists, else its folder's (device,
// inode) and the name in it, the links on the way followed (for comparing two names only).
std::tuple<dev_t, ino_t, std::string> output_identity(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        return {st.st_dev, st.st_ino, std::string()};
    }
    std::string p = path;
    for (int hop = 0; hop < 40; ++hop) {
        struct stat lst {};
        std::array<char, PATH_MAX> buf{};
        if (::lstat(p.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) {
            break;
        }
        const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
        if (n <= 0) {
            break;
        }
        const std::string target(buf.data(), static_cast<std::size_t>(n));
        p = target.front() == '/' ? target : folder_of(p) + "/" + target;
    }
    if (::stat(folder_of(p).c_str(), &st) != 0) {
        return {0, 0, path};
    }
    return {st.st_dev, st.st_ino, base_of(p)};
}

}  // namespace

bool same_output_file(const std::string& a, const std::string& b) {
    if (a == b) {
        return true;
    }
    if (a.empty() || b.empty() || a == "-" || b == "-") {
        return false;
    }
    const auto ia = output_identity(a);
    const auto ib = output_identity(b);
    return std::get<0>(ia) != 0 && ia == ib;
}

}  // namespace planlayout
