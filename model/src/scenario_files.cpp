// Scenario, jobs and events files on disk: read with size limits (or from standard input), written atomically.
#include <clustertwin/model/scenario_io.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ct::model {

JobsResult loadJobsFile(const std::string& path) {
    const std::string text = readTextFile(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ParseError(path, 1, 1, "file is empty");
    return parseJobs(text, path);
}

EventsResult loadEventsFile(const std::string& path) {
    const std::string text = readTextFile(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ParseError(path, 1, 1, "file is empty");
    return parseEvents(text, path);
}

std::string readTextFile(const std::string& path, std::uintmax_t max_bytes) {
    if (path == "-") {  // standard input, as Unix tools read it
        std::string text;
        char buf[1 << 16];
        while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
            text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
            if (text.size() > max_bytes) throw ModelError("<stdin>: too large (the limit is " + std::to_string(max_bytes >> 20) + " MiB)");
        }
        return text;
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw ModelError(path + ": cannot open: no such file");
    if (fs::is_directory(st)) throw ModelError(path + ": is a directory, not a file");
    const auto size = fs::file_size(path, ec);
    if (ec) throw ModelError(path + ": cannot read: " + ec.message());
    if (size > max_bytes) {
        char buf[160];
        std::snprintf(buf, sizeof buf, ": file is too large (%.1f MiB; the limit is %.0f MiB)",
                      static_cast<double>(size) / (1024.0 * 1024.0), static_cast<double>(max_bytes) / (1024.0 * 1024.0));
        throw ModelError(path + buf);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ModelError(path + ": cannot open: " + std::strerror(errno));
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uintmax_t>(in.gcount()) != size) throw ModelError(path + ": read error");
    return text;
}

LoadResult loadScenarioFile(const std::string& path) {
    const std::string text = readTextFile(path);
    const std::string name = path == "-" ? "<stdin>" : path;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ParseError(name, 1, 1, "file is empty");
    return parseScenario(text, name);
}

void writeFileAtomically(const std::string& path, std::string_view contents) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw ModelError(path + ": cannot create a temporary file: " + std::strerror(errno));
    const char* p = contents.data();
    std::size_t left = contents.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmpl.c_str());
            throw ModelError(path + ": write failed: " + why + " (the old file is unchanged)");
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        throw ModelError(path + ": write failed: " + why + " (the old file is unchanged)");
    }
    ::chmod(tmpl.c_str(), 0644);
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        throw ModelError(path + ": cannot replace the file: " + why + " (the old file is unchanged)");
    }
}

void saveScenarioFile(const Scenario& s, const std::string& path) { writeFileAtomically(path, scenarioToJson(s)); }

}  // namespace ct::model
