// parseFile: a file's format detected (formats.hpp) and its row's parser run on it.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "input.hpp"

#include <chrono>
#include <filesystem>

namespace ct::importers {

ParseResult parseFile(const std::string& path, const Progress& progress, const std::string& host) {
    ParseOptions base;
    base.host = host;
    base.host_from_path = true;
    return parseFile(path, base, progress);
}

ParseResult parseFile(const std::string& path, const ParseOptions& base, const Progress& progress) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw ImportError(path + ": cannot read: " + ec.message());
    return parseFileAs(path, size == 0 ? Detection{} : detectFileFormat(path), base, progress);
}

ParseResult parseFileAs(const std::string& path, Detection det, const ParseOptions& base, const Progress& progress) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw ImportError(path + ": cannot read: " + ec.message());
    if (size == 0) {  // a tool that failed (perfquery prints nothing): not an error, nothing to import
        ParseResult empty;
        empty.warnings.push_back({path + ":1", "empty", "file is empty"});
        return empty;
    }
    // sacct text without a header is recognised by the --format list it was printed with.
    if (!det && !base.sacct_fields.empty()) det.format = findFormat("slurm-sacct");
    if (!det) throw ImportError(path + ": format not recognised" + (det.reason.empty() ? std::string() : " (" + det.reason + ")"));
    ParseOptions opt = base;
    opt.file_name = path;
    const auto mtime = fs::last_write_time(path, ec);
    if (!ec) {
        const auto sys =
            std::chrono::time_point_cast<std::chrono::seconds>(mtime - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
        opt.default_time_s = static_cast<double>(sys.time_since_epoch().count());
    }
    if (det.format->parse_path) return det.format->parse_path(path, opt, progress);
    if (!det.format->parse) throw ImportError(path + ": " + det.format->label + " has no parser");
    detail::InputFile file(path);
    return det.format->parse(file.stream(), opt, progress, file.sizeHint());
}

}  // namespace ct::importers
