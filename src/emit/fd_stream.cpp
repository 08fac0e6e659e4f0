// Emit: FdStreamBuf and FdOStream, the checked streams over a file descriptor that OutputFile and
// standard output write through (include/planlayout/emit/output_file.hpp).
#include <unistd.h>

#include <cerrno>

#include "planlayout/emit/output_file.hpp"

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

}  // namespace planlayout
