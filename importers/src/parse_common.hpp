#pragma once
// Small helpers shared by the parsers. Private.
#include <clustertwin/importers/parse.hpp>

#include <exception>
#include <functional>
#include <istream>
#include <vector>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <clustertwin/model/time.hpp>

#include <nlohmann/json_fwd.hpp>

namespace ct::importers::detail {

/// `s` without the white space (space, tab, CR, LF, VT, FF) at either end.
std::string trim(std::string_view s);
/// True when `s` is valid UTF-8.
bool validUtf8(std::string_view s);
/// Parses a double; accepts NaN, +Inf, -Inf, Inf. False when not a complete number.
bool parseNumber(std::string_view s, double& out);
using model::parseIsoTime;  // model/time.hpp
/// A label set reused from line to line (no allocation once warm). Later duplicates win.
class Labels {
public:
    void clear() { n_ = 0; }
    std::string& add(std::string_view key) {
        if (n_ == kv_.size()) kv_.emplace_back();
        auto& p = kv_[n_++];
        p.first.assign(key);
        p.second.clear();
        return p.second;
    }
    const std::string* find(std::string_view key) const {
        for (std::size_t i = n_; i-- > 0;)
            if (kv_[i].first == key) return &kv_[i].second;
        return nullptr;
    }
    std::string get(std::string_view key) const {
        const std::string* v = find(key);
        return v ? *v : std::string();
    }
    std::size_t size() const { return n_; }
    const std::pair<std::string, std::string>& operator[](std::size_t i) const { return kv_[i]; }

private:
    std::vector<std::pair<std::string, std::string>> kv_;
    std::size_t n_ = 0;
};

/// What a Prometheus parse remembers from sample to sample: the entities listed, the last host and metric
/// family (consecutive samples usually share them), nvidia_gpu_exporter's GPUs, and the labels beyond the
/// entity's that each sample carried (to tell apart series that would otherwise collide).
struct PromState {
    std::unordered_set<std::string> seen;
    std::string default_host = "unknown-host";  ///< for samples without a Hostname/hostname/instance label
    std::string last_host, entity, metric, name, unit, tag;
    double scale = 1;
    bool skip = false;  ///< the family is not telemetry (nvidia_gpu_exporter's *_info identity series)
    std::map<std::string, std::pair<std::string, std::string>> exporter_gpus;  ///< uuid → (index, name)
    std::map<std::string, std::string> uuid_entity;                            ///< uuid → "<host>/gpu-<uuid>"
    std::vector<std::string> tagsets{std::string()};
    std::unordered_map<std::string, std::uint32_t> tag_index;
    std::vector<std::uint32_t> tag_of;  ///< per sample once any carried extra labels (empty before)
    std::vector<std::string> keys;      ///< the label names of the last sample
    std::vector<std::size_t> extra;     ///< positions of its extra labels, in name order
};
/// `where` makes the location of a warning (only called when there is one).
bool addPromSample(std::string_view metric, const Labels& labels, double t, double value, const std::function<std::string()>& where,
                   ParseResult& res, PromState& st);
/// After the last sample: nvidia_gpu_exporter GPUs renamed "<host>/gpu<index>" where nvidia_smi_gpu_info
/// gave the index; series of one entity and metric that differ in other labels (pid, container, le) and
/// would collide at one time with different values get those labels in their metric name.
void finishPromParse(ParseResult& res, PromState& st);
/// The line of a JSON document where nlohmann's exception `e` points (1 when it names no byte offset, as
/// out_of_range for a number like 6E1226 does).
/// obj[key] when `obj` is an object holding a string there, else `dflt`: never throws on a value of another
/// type (json::value() does, and a fuzzer finds it at once).
std::string jsonText(const nlohmann::json& obj, const char* key, const std::string& dflt = {});
/// obj[key] when it is a boolean, else `dflt`.
bool jsonFlag(const nlohmann::json& obj, const char* key, bool dflt);
using importers::jsonErrorLine;  // parse.hpp
inline std::string loc(const ParseOptions& o, std::size_t line) { return o.file_name + ":" + std::to_string(line); }

/// The line loop every text parser shares: strips CR, counts lines, reports progress every 4096 lines (a
/// false answer cancels), skips lines that are not UTF-8 with a warning, and says progress 1 at the end.
class LineReader {
public:
    LineReader(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint, ParseResult& res)
        : in_(in), opt_(opt), progress_(progress), size_hint_(size_hint), res_(res) {}
    /// The next line; false at the end or when cancelled (res.cancelled is then set).
    bool next(std::string& line);
    std::size_t lineno() const { return lineno_; }
    std::string location() const { return loc(opt_, lineno_); }
    /// The line just read ended the file without its newline: cut off, for formats whose lines all end in one.
    bool unterminated() const { return unterminated_; }

private:
    std::istream& in_;
    const ParseOptions& opt_;
    Progress progress_;  // a copy: callers may pass a temporary
    std::size_t size_hint_, lineno_ = 0, bytes_ = 0;
    ParseResult& res_;
    bool unterminated_ = false;
};

/// The host of a file that names none: ParseOptions::host, else (host_from_path) the file's name up to its
/// first '.', else `fallback`.
std::string defaultHost(const ParseOptions& opt, const std::string& fallback);

}  // namespace ct::importers::detail
