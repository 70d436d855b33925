#pragma once
// The formats ClusterTwin imports, as one table (contributing.md habit 15). Each format is one file in
// importers/src/formats/ that declares its row — id, label, extensions, a sniffer that scores a file's first
// bytes, what it holds and its parser — and one line in importers/src/formats/all_formats.inc registers it.
// Detection, parseFile, the import session, `clustertwin-cli import --formats`, the app's import dialog, the
// fuzz targets and docs/importers.md's table all read it (tst_format_detect checks the last two).
#include <clustertwin/importers/format.hpp>
#include <clustertwin/importers/parse.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::importers {

/// What a format's files hold.
enum class FormatKind {
    Samples,    ///< readings over time (and the entities they belong to)
    Jobs,       ///< scheduler or trace jobs, for replay
    Inventory,  ///< hosts and their GPUs, maybe with a reading or two
    Topology,   ///< fabric switches, adapters and the cables between them
};
std::string_view toString(FormatKind k);

/// What a sniffer sees of a file.
struct FileHead {
    std::string name;       ///< the file's name, lowercase, without ".gz"
    std::string_view head;  ///< its first bytes (up to 64 KiB, decompressed)
    std::string_view first_line;
    std::string first_line_lower;
    char first = '\0';  ///< the first character that is not white space or a byte-order mark
    FileHead(std::string_view file_name, std::string_view head);
    bool has(std::string_view needle) const { return head.find(needle) != std::string_view::npos; }
    bool json() const { return first == '{' || first == '['; }
    bool xml() const { return first == '<'; }
    /// Neither JSON nor XML: the line-oriented text formats sniff only these.
    bool text() const { return !json() && !xml(); }
};

/// A sniffer's verdict: 0 = not this format; otherwise how sure (up to 100) and what gave it away.
struct Sniff {
    int score = 0;
    std::string reason;
};

using StreamParser = std::function<ParseResult(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint)>;
using PathParser = std::function<ParseResult(const std::string& path, const ParseOptions& opt, const Progress& progress)>;

struct FormatInfo {
    std::string id;                       ///< "prometheus-text": stable, in import summaries and --json
    std::string label;                    ///< "DCGM exporter / Prometheus text": for people
    std::vector<std::string> extensions;  ///< ".prom", ".metrics" (lowercase, with the dot)
    int extension_score = 0;              ///< how sure the extension alone makes it when the content is silent
    std::function<Sniff(const FileHead&)> sniff;
    FormatKind kind = FormatKind::Samples;
    StreamParser parse;     ///< the parser, on a stream
    PathParser parse_path;  ///< or, for formats that read files beside it, on a path
    /// A file of this format is read through this file beside it (a ClusterCockpit data.json through its
    /// meta.json): a folder walk skips it when that file is there.
    std::string read_through;
};

/// Every format, in registration order (which breaks ties between equal scores).
std::vector<const FormatInfo*> formats();
/// The format with this id, or null.
const FormatInfo* findFormat(std::string_view id);
/// Adds a format (or replaces the one with the same id): a new format is one row. Not thread-safe against
/// detection running at the same time; register at start-up.
void registerFormat(FormatInfo f);

}  // namespace ct::importers
