// nvidia-smi -q -x (FORMATS.md §2b): a small XML reader of its own (elements, attributes, text, comments,
// DOCTYPE without fetching the DTD) and the mapping of the schema versions v10–v13 onto engine metric names.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"
#include "../vocabulary.hpp"

#include <cmath>
#include <cstring>
#include <ctime>
#include <iterator>
#include <map>
#include <set>

namespace ct::importers {

namespace {

using detail::trim;

/// Leaf paths below <gpu> (or <mig_device>) → the nvidia-smi query field that reports the same quantity, so
/// names and units come from the one vocabulary (vocabulary.hpp). Version drift: power_readings (v10/v11),
/// gpu_power_readings (v12+); v13 has no power_draw, and its average_power_draw is what power.draw reports
/// on those GPUs (nvidia-smi --help-query-gpu: "on Ampere or newer devices, returns average power draw").
const char* gpuField(const std::string& path) {
    static const std::map<std::string, const char*> m = {
        {"temperature/gpu_temp", "temperature.gpu"},
        {"temperature/memory_temp", "temperature.memory"},
        {"power_readings/power_draw", "power.draw"},
        {"gpu_power_readings/power_draw", "power.draw"},
        {"gpu_power_readings/average_power_draw", "power.draw"},
        {"gpu_power_readings/instant_power_draw", "power.draw.instant"},
        {"power_readings/power_limit", "power.limit"},
        {"gpu_power_readings/power_limit", "power.limit"},
        {"power_readings/enforced_power_limit", "enforced.power.limit"},
        {"gpu_power_readings/enforced_power_limit", "enforced.power.limit"},
        {"gpu_power_readings/current_power_limit", "enforced.power.limit"},
        {"power_readings/default_power_limit", "power.default_limit"},
        {"gpu_power_readings/default_power_limit", "power.default_limit"},
        {"power_readings/min_power_limit", "power.min_limit"},
        {"gpu_power_readings/min_power_limit", "power.min_limit"},
        {"power_readings/max_power_limit", "power.max_limit"},
        {"gpu_power_readings/max_power_limit", "power.max_limit"},
        {"utilization/gpu_util", "utilization.gpu"},
        {"utilization/memory_util", "utilization.memory"},
        {"utilization/encoder_util", "utilization.encoder"},
        {"utilization/decoder_util", "utilization.decoder"},
        {"fan_speed", "fan.speed"},
        {"performance_state", "pstate"},
        {"clocks/graphics_clock", "clocks.current.graphics"},
        {"clocks/sm_clock", "clocks.current.sm"},
        {"clocks/mem_clock", "clocks.current.memory"},
        {"clocks/video_clock", "clocks.current.video"},
        {"max_clocks/graphics_clock", "clocks.max.graphics"},
        {"max_clocks/sm_clock", "clocks.max.sm"},
        {"max_clocks/mem_clock", "clocks.max.memory"},
        {"fb_memory_usage/total", "memory.total"},
        {"fb_memory_usage/reserved", "memory.reserved"},
        {"fb_memory_usage/used", "memory.used"},
        {"fb_memory_usage/free", "memory.free"},
    };
    auto it = m.find(path);
    return it == m.end() ? nullptr : it->second;
}

/// Quantities the query interface does not have: their own names.
const detail::Term* ownMetric(const std::string& path) {
    static const std::map<std::string, detail::Term> m = {
        {"temperature/gpu_temp_slow_threshold", {"temp_slowdown_c", "degC", 1}},
        {"temperature/gpu_temp_max_threshold", {"temp_shutdown_c", "degC", 1}},
        {"module_power_readings/power_draw", {"module_power_w", "W", 1}},
        {"module_power_readings/instant_power_draw", {"module_power_w", "W", 1}},
        {"pci/tx_util", {"pcie_tx_kbps", "KB/s", 1}},
        {"pci/rx_util", {"pcie_rx_kbps", "KB/s", 1}},
    };
    auto it = m.find(path);
    return it == m.end() ? nullptr : &it->second;
}

bool isPlaceholder(const std::string& v) {
    return v.empty() || v == "N/A" || v == "[N/A]" || v == "Not Active" || v == "Not Supported" || v == "[Not Supported]" ||
           v.rfind("Requested functionality", 0) == 0 || v == "Unknown Error" || v == "Disabled" || v == "Enabled";
}

/// "33 C", "70.93 W", "81559 MiB", "0 %": the leading number.
bool leadingNumber(const std::string& v, double& out) {
    const auto sp = v.find(' ');
    return detail::parseNumber(sp == std::string::npos ? v : v.substr(0, sp), out);
}

/// ctime style, "Fri Aug  4 11:44:30 2023" (read as UTC: the file carries no zone).
bool parseCtime(const std::string& s, double& out) {
    char wd[4] = {0}, mon[4] = {0};
    int day = 0, h = 0, m = 0, sec = 0, year = 0;
    if (std::sscanf(s.c_str(), "%3s %3s %d %d:%d:%d %d", wd, mon, &day, &h, &m, &sec, &year) != 7) return false;
    static const char* months = "JanFebMarAprMayJunJulAugSepOctNovDec";
    const char* p = std::strstr(months, mon);
    if (!p || std::strlen(mon) != 3 || (p - months) % 3 != 0) return false;
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = static_cast<int>((p - months) / 3);
    tm.tm_mday = day;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    out = static_cast<double>(timegm(&tm));
    return true;
}

std::string decodeEntities(const std::string& s) {
    if (s.find('&') == std::string::npos) return s;
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') {
            out += s[i];
            continue;
        }
        const auto semi = s.find(';', i);
        const std::string ent = semi == std::string::npos ? "" : s.substr(i + 1, semi - i - 1);
        if (ent == "amp") out += '&';
        else if (ent == "lt") out += '<';
        else if (ent == "gt") out += '>';
        else if (ent == "quot") out += '"';
        else if (ent == "apos") out += '\'';
        else {
            out += '&';
            continue;
        }
        i = semi;
    }
    return out;
}

struct Device {  // one <gpu> or <mig_device> being read
    std::string entity;
    std::size_t depth = 0;  // stack depth of its element
    std::vector<std::pair<detail::Term, double>> values;
    std::map<std::string, bool> throttle;  // reason → active
};

class SmiXmlReader {
public:
    SmiXmlReader(const std::string& text, const ParseOptions& opt, const Progress& progress, ParseResult& res)
        : s_(text), opt_(opt), progress_(progress), res_(res) {
        host_ = detail::defaultHost(opt, "unknown-host");
        t_ = opt.default_time_s;
    }

    void run() {
        std::size_t last_report = 0;
        while (pos_ < s_.size()) {
            if (progress_ && pos_ - last_report > (1u << 16)) {
                last_report = pos_;
                if (!progress_(static_cast<double>(pos_) / static_cast<double>(s_.size()))) {
                    res_.cancelled = true;
                    return;
                }
            }
            if (s_[pos_] != '<') {
                const auto lt = s_.find('<', pos_);
                const std::size_t end = lt == std::string::npos ? s_.size() : lt;
                text_.append(s_, pos_, end - pos_);
                advance(end);
                continue;
            }
            if (!tag()) break;
        }
        if (!stack_.empty()) {
            warn("truncated", "file ends inside <" + stack_.back() + ">; the values read so far are kept");
            while (!devices_.empty()) finishDevice();
        }
        if (!saw_root_) warn("syntax", "no <nvidia_smi_log> root element");
        if (progress_) progress_(1.0);
    }

private:
    void warn(const std::string& kind, const std::string& msg) { res_.warnings.push_back({detail::loc(opt_, line_), kind, msg}); }

    void advance(std::size_t to) {
        for (std::size_t i = pos_; i < to && i < s_.size(); ++i)
            if (s_[i] == '\n') ++line_;
        pos_ = std::min(to, s_.size());
    }

    /// Reads the markup at pos_ ('<'). False when the rest of the file cannot be read.
    bool tag() {
        auto skipTo = [&](const char* end) {
            const auto e = s_.find(end, pos_);
            if (e == std::string::npos) {
                warn("truncated", std::string("unterminated markup (no \"") + end + "\")");
                advance(s_.size());
                return false;
            }
            advance(e + std::strlen(end));
            return true;
        };
        if (s_.compare(pos_, 4, "<!--") == 0) return skipTo("-->");
        if (s_.compare(pos_, 2, "<?") == 0) return skipTo("?>");
        if (s_.compare(pos_, 2, "<!") == 0) return skipTo(">");  // DOCTYPE: the DTD is never fetched
        const auto gt = s_.find('>', pos_);
        if (gt == std::string::npos) {
            warn("truncated", "unterminated tag");
            advance(s_.size());
            return false;
        }
        const std::string body = s_.substr(pos_ + 1, gt - pos_ - 1);
        const std::size_t tag_line = line_;
        advance(gt + 1);
        if (body.empty()) {
            warn("syntax", "empty tag <>");
            return true;
        }
        if (body[0] == '/') {
            close(trim(body.substr(1)), tag_line);
            return true;
        }
        const bool self_closing = body.back() == '/';
        const std::string inner = self_closing ? body.substr(0, body.size() - 1) : body;
        const auto sp = inner.find_first_of(" \t\r\n");
        const std::string name = inner.substr(0, sp);
        std::map<std::string, std::string> attrs;
        if (sp != std::string::npos) {  // name="value" pairs
            std::size_t i = sp;
            while (i < inner.size()) {
                const auto eq = inner.find('=', i);
                if (eq == std::string::npos) break;
                const std::string key = trim(inner.substr(i, eq - i));
                const auto q1 = inner.find_first_of("\"'", eq);
                if (q1 == std::string::npos) break;
                const auto q2 = inner.find(inner[q1], q1 + 1);
                if (q2 == std::string::npos) {
                    warn("syntax", "unterminated attribute in <" + name + ">");
                    break;
                }
                attrs[key] = decodeEntities(inner.substr(q1 + 1, q2 - q1 - 1));
                i = q2 + 1;
            }
        }
        open(name, attrs);
        if (self_closing) close(name, tag_line);
        return true;
    }

    void open(const std::string& name, const std::map<std::string, std::string>& attrs) {
        stack_.push_back(name);
        text_.clear();
        leaf_ = true;
        if (stack_.size() == 1) {
            if (name != "nvidia_smi_log") warn("syntax", "root element is <" + name + ">, not <nvidia_smi_log>");
            saw_root_ = true;
        }
        if (name == "gpu" && stack_.size() == 2) {
            Device d;
            d.entity = host_ + "/gpu" + std::to_string(gpu_count_++);
            d.depth = stack_.size();
            if (auto it = attrs.find("id"); it != attrs.end()) gpu_labels_["pci_bus_id"] = it->second;
            if (seen_hosts_.insert(host_).second) res_.entities.push_back({host_, "node", "", host_, {}});
            devices_.push_back(d);
            gpu_index_ = res_.entities.size();
            res_.entities.push_back({d.entity, "gpu", host_, "", gpu_labels_});
            gpu_labels_.clear();
        } else if (name == "mig_device" && !devices_.empty()) {
            Device d;
            d.depth = stack_.size();
            devices_.push_back(d);  // entity set when gpu_instance_id is read
        }
    }

    void close(const std::string& name, std::size_t tag_line) {
        if (stack_.empty() || stack_.back() != name) {
            const auto it = std::find(stack_.rbegin(), stack_.rend(), name);
            res_.warnings.push_back({detail::loc(opt_, tag_line), "syntax",
                                     "</" + name + "> does not close <" + (stack_.empty() ? std::string("nothing") : stack_.back()) + ">"});
            if (it == stack_.rend()) return;  // stray close: ignored
            while (stack_.back() != name) popElement(false);
        }
        popElement(leaf_);
        leaf_ = false;
    }

    void popElement(bool leaf) {
        if (leaf) value(trim(decodeEntities(text_)));
        text_.clear();
        if (!devices_.empty() && devices_.back().depth == stack_.size()) finishDevice();
        stack_.pop_back();
    }

    /// A leaf's text: the path below the innermost device decides what it is.
    void value(const std::string& v) {
        if (stack_.size() == 2 && stack_[1] == "timestamp") {
            double t;
            if (parseCtime(v, t)) t_ = t - opt_.tz_offset_s;  // local time of the machine: --tz says its offset
            else warn("bad_value", "timestamp \"" + v + "\" is not in ctime form");
            return;
        }
        if (devices_.empty()) return;
        Device& d = devices_.back();
        std::string path;
        for (std::size_t k = d.depth; k < stack_.size(); ++k) path += (path.empty() ? "" : "/") + stack_[k];
        const bool is_mig = d.depth != devices_.front().depth;
        if (is_mig) {
            if (path == "gpu_instance_id") {
                d.entity = devices_.front().entity + "/mig" + v;
                res_.entities.push_back({d.entity, "mig", devices_.front().entity, "MIG " + v, {}});
            }
        } else if (path == "product_name") {
            res_.entities[gpu_index_].name = v;
        } else if (path == "uuid" || path == "serial" || path == "minor_number") {
            res_.entities[gpu_index_].labels[path] = v;
        }
        const auto slash = path.find('/');
        const std::string group = path.substr(0, slash);
        if (slash != std::string::npos && (group == "clocks_throttle_reasons" || group == "clocks_event_reasons")) {
            std::string reason = path.substr(slash + 1);
            for (const char* prefix : {"clocks_throttle_reason_", "clocks_event_reason_"})
                if (reason.rfind(prefix, 0) == 0) reason = reason.substr(std::strlen(prefix));
            if (v == "Active" || v == "Not Active") d.throttle[reason] = v == "Active";
            return;
        }
        const char* field = gpuField(path);
        const detail::Term* own = field ? nullptr : ownMetric(path);
        if ((!field && !own) || isPlaceholder(v)) return;
        double x;
        if (!leadingNumber(v, x) && !(field && detail::parsePstate(v, x))) {
            warn("bad_value", path + ": \"" + v + "\" is not a number");
            return;
        }
        if (own) {
            d.values.emplace_back(*own, x);
            return;
        }
        const auto sp = v.find(' ');  // "33 C", "70.93 W", "0 %"
        const auto term = detail::smiTerm(field, sp == std::string::npos ? std::string_view() : std::string_view(v).substr(sp + 1));
        if (!term) {
            warn("bad_value", path + ": unit of \"" + v + "\" not understood");
            return;
        }
        d.values.emplace_back(*term, x * term->scale);
    }

    void finishDevice() {
        Device d = std::move(devices_.back());
        devices_.pop_back();
        if (d.entity.empty()) return;  // a MIG device without its instance id
        if (std::isnan(t_)) {
            warn("missing_field", "no <timestamp> and no default time; samples of " + d.entity + " dropped");
            return;
        }
        for (const auto& [m, x] : d.values) res_.samples.push_back({d.entity, std::string(m.metric), std::string(m.unit), t_, x});
        if (!d.throttle.empty()) {
            auto active = [&](std::initializer_list<const char*> names) {
                for (const char* n : names)
                    if (auto it = d.throttle.find(n); it != d.throttle.end() && it->second) return 1.0;
                return 0.0;
            };
            res_.samples.push_back(
                {d.entity, "throttle_thermal", "bool", t_, active({"hw_thermal_slowdown", "sw_thermal_slowdown", "hw_slowdown"})});
            res_.samples.push_back({d.entity, "throttle_power", "bool", t_, active({"sw_power_cap", "hw_power_brake_slowdown"})});
        }
    }

    const std::string& s_;
    const ParseOptions& opt_;
    Progress progress_;
    ParseResult& res_;
    std::string host_, text_;
    double t_;
    std::size_t pos_ = 0, line_ = 1, gpu_count_ = 0, gpu_index_ = 0;
    bool leaf_ = false, saw_root_ = false;
    std::vector<std::string> stack_;
    std::vector<Device> devices_;
    std::map<std::string, std::string> gpu_labels_;
    std::set<std::string> seen_hosts_;
};

}  // namespace

ParseResult parseNvidiaSmiXml(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t) {
    ParseResult res;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!detail::validUtf8(text))
        res.warnings.push_back({detail::loc(opt, 1), "bad_utf8", "file is not valid UTF-8; text values may be garbled"});
    SmiXmlReader(text, opt, progress, res).run();
    return res;
}

namespace format_rows {

FormatInfo nvidiaSmiXml() {
    FormatInfo f;
    f.id = "nvidia-smi-xml";
    f.label = "nvidia-smi -q -x XML";
    f.extensions = {".xml"};
    f.extension_score = 40;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.xml() && h.has("<nvidia_smi_log")) return {95, "root element <nvidia_smi_log>"};
        return {};
    };
    f.parse = parseNvidiaSmiXml;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
