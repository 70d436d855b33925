#pragma once
// Telemetry formats ClusterTwin imports (models.md §7) and how a file's format is recognised: every format
// sniffs the first bytes and scores how sure it is, the file's extension adds a little (F3D's canRead + score,
// contributing.md habit 4). The formats themselves are one table (formats.hpp).
#include <clustertwin/model/error.hpp>

#include <string>
#include <string_view>

namespace ct::importers {

/// Failures of an importer.
class ImportError : public Error {
public:
    using Error::Error;
};

/// A long read stopped on request (a progress callback said no).
class LoadCancelled : public ImportError {
public:
    LoadCancelled() : ImportError("cancelled") {}
};

struct FormatInfo;

struct Detection {
    const FormatInfo* format = nullptr;  ///< the format's row in formats(); null when not recognised
    int score = 0;                       ///< 0..100: how sure
    std::string reason;                  ///< what gave it away (or, when not recognised, why it is not telemetry)
    /// The format's id ("prometheus-text"), "unknown" when none.
    std::string_view id() const;
    bool is(std::string_view format_id) const { return id() == format_id; }
    explicit operator bool() const { return format != nullptr; }
};

/// Recognises a format from a file name and the first bytes of its content (a few KiB are enough). Pure.
Detection detectFormat(std::string_view file_name, std::string_view head);

/// Reads the first 64 KiB of `path` (decompressed when it is .gz) and calls detectFormat. Throws ImportError
/// if it cannot be read.
Detection detectFileFormat(const std::string& path);

}  // namespace ct::importers
