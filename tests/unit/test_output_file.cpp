// Tests: the output policy of OutputFile (docs/hardening.md "Output files"): atomic replacement
// that keeps the mode, umask for new files, symlinks followed, devices and FIFOs written through,
// inputs and empty names refused, long names, nothing left behind without commit().
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_spec.hpp"
#include "context.hpp"
#include "planlayout/cli/run.hpp"
#include "planlayout/emit/output_file.hpp"
#include "planlayout/error.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::ExitCode;
using planlayout::OutputFile;
using planlayout::testing::slurp;

namespace {

// A fresh folder per test, removed afterwards.
struct Scratch {
    fs::path dir;

    explicit Scratch(const std::string& name)
        : dir(fs::temp_directory_path() / ("planlayout_output_" + name + "_" + std::to_string(::getpid()))) {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }

    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    Scratch(Scratch&&) = delete;
    Scratch& operator=(Scratch&&) = delete;

    [[nodiscard]] std::size_t entries() const {
        return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
    }

    [[nodiscard]] bool has_temporary() const {
        for (const auto& e : fs::directory_iterator(dir)) {
            if (e.path().filename().string().find(".tmp.") != std::string::npos) {
                return true;
            }
        }
        return false;
    }
};

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777U;
}

ExitCode code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const planlayout::Error& e) {
        return e.code();
    }
    return ExitCode::Ok;
}

// Sets the umask for a scope.
class UmaskScope {
public:
    explicit UmaskScope(mode_t mask) : old_(::umask(mask)) {}
    ~UmaskScope() { ::umask(old_); }
    UmaskScope(const UmaskScope&) = delete;
    UmaskScope& operator=(const UmaskScope&) = delete;
    UmaskScope(UmaskScope&&) = delete;
    UmaskScope& operator=(UmaskScope&&) = delete;

private:
    mode_t old_;
};

}  // namespace

TEST_CASE("an atomic write replaces the file and leaves no temporary behind") {
    const Scratch s("replace");
    const fs::path f = s.dir / "out.json";
    planlayout::write_file_atomically(f.string(), "first");
    planlayout::write_file_atomically(f.string(), "second");
    CHECK(slurp(f) == "second");
    CHECK(s.entries() == 1);
}

TEST_CASE("a failed atomic write throws an I/O error naming the path") {
    try {
        planlayout::write_file_atomically("/nonexistent-dir/x.json", "x");
        FAIL("no error");
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == ExitCode::Io);
        CHECK(std::string(e.what()).find("/nonexistent-dir/x.json") == 0);
    }
}

TEST_CASE("output: an existing file keeps its mode, a new file gets 0666 & ~umask") {
    const Scratch s("mode");
    const fs::path kept = s.dir / "kept.txt";
    write_text(kept, "old");
    REQUIRE(::chmod(kept.c_str(), 0640) == 0);
    planlayout::write_file_atomically(kept.string(), "new");
    CHECK(slurp(kept) == "new");
    CHECK(mode_of(kept) == 0640U);

    const UmaskScope mask(077);
    const fs::path fresh = s.dir / "fresh.txt";
    planlayout::write_file_atomically(fresh.string(), "x");
    CHECK(mode_of(fresh) == 0600U);
    {
        const UmaskScope mask2(022);
        const fs::path other = s.dir / "other.txt";
        planlayout::write_file_atomically(other.string(), "x");
        CHECK(mode_of(other) == 0644U);
    }
}

TEST_CASE("output: a symlink's final target is replaced and the link stays a link") {
    const Scratch s("symlink");
    fs::create_directories(s.dir / "real");
    const fs::path target = s.dir / "real" / "target.txt";
    write_text(target, "old");
    REQUIRE(::chmod(target.c_str(), 0604) == 0);
    fs::create_symlink("real/target.txt", s.dir / "link1");  // relative, resolved from the link's folder
    fs::create_symlink(s.dir / "link1", s.dir / "link2");    // a chain
    planlayout::write_file_atomically((s.dir / "link2").string(), "new");
    CHECK(fs::is_symlink(s.dir / "link1"));
    CHECK(fs::is_symlink(s.dir / "link2"));
    CHECK(slurp(target) == "new");
    CHECK(mode_of(target) == 0604U);
    CHECK_FALSE(s.has_temporary());
    CHECK(std::distance(fs::directory_iterator(s.dir / "real"), fs::directory_iterator{}) == 1);

    // A dangling link: its target is created.
    fs::create_symlink("made.txt", s.dir / "dangling");
    planlayout::write_file_atomically((s.dir / "dangling").string(), "made");
    CHECK(fs::is_symlink(s.dir / "dangling"));
    CHECK(slurp(s.dir / "made.txt") == "made");
}

TEST_CASE("output: a character device is written through and stays a device") {
    OutputFile out("/dev/null");
    REQUIRE(out.writes_through());  // else commit() would replace the device (as root)
    out.write("discarded\n");
    out.commit();
    struct stat st {};
    REQUIRE(::stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("output: a FIFO is written through") {
    const Scratch s("fifo");
    const fs::path fifo = s.dir / "pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer's open does not wait
    REQUIRE(reader >= 0);
    {
        OutputFile out(fifo.string());
        CHECK(out.writes_through());
        out.write("through the pipe\n");
        out.commit();
    }
    char buf[64] = {};
    const ssize_t n = ::read(reader, buf, sizeof buf);
    ::close(reader);
    CHECK(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "through the pipe\n");
    struct stat st {};
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK(s.entries() == 1);
}

TEST_CASE("output: /dev/fd/N and /proc/self/fd/N are written through") {
    for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        CAPTURE(prefix);
        int fds[2] = {-1, -1};
        REQUIRE(::pipe(fds) == 0);
        {
            OutputFile out(prefix + std::to_string(fds[1]));
            REQUIRE(out.writes_through());
            out.write("via " + prefix);
            out.commit();
        }
        ::close(fds[1]);
        char buf[64] = {};
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        ::close(fds[0]);
        CHECK(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "via " + prefix);
    }
}

TEST_CASE("output: the same file as an input is refused (exit 2), through any path") {
    const Scratch s("input");
    const fs::path input = s.dir / "layout.json";
    write_text(input, "{}");
    fs::create_symlink(input, s.dir / "alias.json");
    fs::create_hard_link(input, s.dir / "hard.json");
    const std::vector<std::string> inputs{input.string()};
    for (const fs::path& p : {input, s.dir / "alias.json", s.dir / "hard.json", s.dir / "." / "layout.json"}) {
        CAPTURE(p);
        CHECK(code_of([&] { OutputFile out(p.string(), inputs); }) == ExitCode::BadInput);
    }
    CHECK(slurp(input) == "{}");
    CHECK_FALSE(s.has_temporary());
    // Another file, standard input and /dev/null are fine.
    CHECK(code_of([&] { OutputFile out((s.dir / "other.json").string(), {input.string(), "-"}); }) == ExitCode::Ok);
    CHECK(code_of([&] { OutputFile out("/dev/null", {"/dev/null"}); }) == ExitCode::Ok);
}

TEST_CASE("output: an empty name is a usage error, a folder an I/O error") {
    CHECK(code_of([] { OutputFile out(""); }) == ExitCode::BadInput);
    const Scratch s("folder");
    CHECK(code_of([&] { OutputFile out(s.dir.string()); }) == ExitCode::Io);
}

TEST_CASE("output: names up to NAME_MAX bytes work (the temporary name is shortened)") {
    const Scratch s("long");
    for (const std::size_t len : {std::size_t{243}, std::size_t{244}, std::size_t{250}, std::size_t{255}}) {
        CAPTURE(len);
        const fs::path f = s.dir / std::string(len, 'a');
        planlayout::write_file_atomically(f.string(), "long");
        CHECK(slurp(f) == "long");
    }
    // A multi-byte character is not split when the base is cut.
    std::string utf8;
    while (utf8.size() < 250) {
        utf8 += "\xc3\xa9";  // é
    }
    const fs::path f = s.dir / utf8;
    planlayout::write_file_atomically(f.string(), "e");
    CHECK(slurp(f) == "e");
    CHECK_FALSE(s.has_temporary());
}

TEST_CASE("output: not committed, the temporary file is removed and the target untouched") {
    const Scratch s("uncommitted");
    const fs::path f = s.dir / "keep.txt";
    write_text(f, "keep");
    {
        OutputFile out(f.string());
        out.stream() << std::string(1 << 20, 'x');  // past the buffer: bytes reach the temporary file
        CHECK(s.has_temporary());
    }
    CHECK(slurp(f) == "keep");
    CHECK(s.entries() == 1);
}

TEST_CASE("output: a failed write is reported at commit with the system's reason") {
    OutputFile out("/dev/full");
    REQUIRE(out.writes_through());  // else commit() would replace the device (as root)
    out.stream() << std::string(1 << 20, 'x');
    try {
        out.commit();
        FAIL("no error");
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == ExitCode::Io);
        CHECK(std::string(e.what()).find("No space left on device") != std::string::npos);
    }
}

TEST_CASE("standard output: a failed write is exit 3 naming standard output") {
    const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    int code = 0;
    std::ostringstream err;
    {
        planlayout::FdOStream out(fd);
        code = planlayout::run_cli({"plan-layout", "groups", "--world", "65536", "--tp", "8", "--format", "json"}, out, err);
    }
    ::close(fd);
    CHECK(code == 3);
    CHECK(err.str().rfind("plan-layout: error: standard output: write failed: No space left on device", 0) == 0);
}

TEST_CASE("every option whose value is a file the command reads is an input (kInputFileOptions)") {
    // commands.json's rows with metavar FILE or LAYOUT, other than the outputs -o and --save-layout.
    const auto defs = planlayout::cli::command_definitions();
    std::vector<std::string> listed(std::begin(planlayout::cli::kInputFileOptions),
                                    std::end(planlayout::cli::kInputFileOptions));
    auto check_rows = [&](const nlohmann::json& rows) {
        for (const auto& row : rows) {
            if (!row.is_array()) {
                continue;
            }
            const std::string names = row[0].get<std::string>();
            const std::string metavar = row[1].get<std::string>();
            const std::string canonical = names.substr(0, names.find(','));
            if ((metavar == "FILE" || metavar == "LAYOUT") && canonical != "-o" && canonical != "--save-layout") {
                CAPTURE(canonical);
                CHECK(std::find(listed.begin(), listed.end(), canonical) != listed.end());
            }
        }
    };
    for (const auto& [name, rows] : defs["sets"].items()) {
        check_rows(rows);
    }
    for (const auto& c : defs["commands"]) {
        check_rows(c["options"]);
    }
}
