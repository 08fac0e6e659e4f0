// Emit: the one place that writes output files, by the output policy of docs/hardening.md
// ("Output files"): atomic replacement of regular files, write-through to devices and FIFOs,
// symlinks followed to their final target, inputs never overwritten, temporary files removed on
// SIGINT/SIGTERM/SIGHUP. Output is streamed: nothing holds the whole text in memory.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace planlayout {

/// A buffered std::streambuf writing to a file descriptor it does not own. A failed write(2)
/// puts the stream in a bad state and keeps the errno: error() says why, for the message.
class FdStreamBuf : public std::streambuf {
public:
    explicit FdStreamBuf(int fd, std::size_t buffer_bytes = std::size_t{1} << 16U);

    /// errno of the first failed write, 0 while every write succeeded.
    [[nodiscard]] int error() const { return error_; }

protected:
    int_type overflow(int_type c) override;
    int sync() override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;

private:
    bool drain();                       // writes the buffered bytes; false on failure
    bool write_all(const char* p, std::size_t n);

    int fd_;
    std::vector<char> buffer_;
    int error_ = 0;
};

/// An std::ostream over a file descriptor (main() writes standard output through one, so that a
/// failed write, e.g. to a full disk or /dev/full, is seen and its reason reported).
class FdOStream : public std::ostream {
public:
    explicit FdOStream(int fd);

    /// errno of the first failed write, 0 while every write succeeded.
    [[nodiscard]] int error() const { return buf_.error(); }

private:
    FdStreamBuf buf_;
};

/// Throws Error (BadInput, exit 2) when `output` names the same file (device and inode, through
/// any path or symlink) as one of `inputs`; "-" and names that do not exist are skipped, as are
/// devices and FIFOs (writing to /dev/null destroys no input).
void refuse_output_onto_input(const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& flag = "-o");

/// True when the two output names would write the same file: the same string, or the same file
/// (device and inode, through any path, symlink or hard link), or, for a name that does not exist
/// yet, the same name in the same folder. "-" is standard output, never a file.
[[nodiscard]] bool same_output_file(const std::string& a, const std::string& b);

/// An output file opened by the policy; the text goes to stream() or write() as it is produced.
///   - a regular file or a new name: a temporary `.NAME.tmp.XXXXXX` in the same folder, renamed
///     over NAME by commit() after fsync; an existing file's mode is kept, a new file gets
///     0666 & ~umask. Not committed (an exception, a failed run): the temporary file is removed
///     and NAME is untouched. While it exists, SIGINT/SIGTERM/SIGHUP remove it before the process
///     ends by the signal.
///   - a symlink: the link's final target is replaced that way; the link stays a link. The kernel
///     resolves the name (open(2) for writing), so fs.protected_symlinks and every folder's
///     permissions apply as to the shell's `>`; the replaced file's folder is then reopened one
///     component at a time with O_NOFOLLOW and checked to hold the file that was opened.
///   - an existing file the caller may not write is refused (it is never replaced through a
///     writable folder); one whose owner cannot be kept by a rename (another user's file this one
///     may write) is written in place at commit, from the finished temporary file.
///   - a character device or FIFO, or a path through /proc (/dev/stdout, /dev/fd/N): written
///     through (appending, for a regular file behind /proc/self/fd).
/// Throws Error: BadInput (exit 2) for an empty name, a block device or socket, or a name that is
/// one of `inputs` (refuse_output_onto_input); Io (exit 3) when the file cannot be created,
/// written or renamed, naming the path and the system's reason.
class OutputFile {
public:
    explicit OutputFile(const std::string& path, const std::vector<std::string>& inputs = {});
    ~OutputFile();

    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    OutputFile(OutputFile&&) = delete;
    OutputFile& operator=(OutputFile&&) = delete;

    /// The stream to write to; check nothing here: commit() reports a failed write.
    [[nodiscard]] std::ostream& stream();

    void write(std::string_view text);

    /// Finishes the file: flush, fsync, close and rename (atomic), or flush and close (write-
    /// through). Throws Error (Io) on any failure; the temporary file is then removed.
    void commit();

    /// The name as given.
    [[nodiscard]] const std::string& path() const;

    /// True when the output is written through (device, FIFO, /proc path), not replaced atomically.
    [[nodiscard]] bool writes_through() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

/// Removes every temporary file an OutputFile holds now, as the SIGINT/SIGTERM/SIGHUP handler
/// does: async-signal-safe, for a terminate handler (the destructors do not run there).
void remove_output_temporaries() noexcept;

/// Writes content to path by the policy above, in one call.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace planlayout
