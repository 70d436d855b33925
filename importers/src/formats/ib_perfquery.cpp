// InfiniBand perfquery counters.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"
#include "../vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ct::importers {

ParseResult parsePerfquery(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    std::string line, entity = "ib-unknown";
    detail::LineReader reader(in, opt, progress, size_hint, res);
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (line.rfind("ibwarn:", 0) == 0) {  // the tool's own complaint: said, not a counter
            res.warnings.push_back({reader.location(), "source_error", line});
            continue;
        }
        if (line.rfind("# Port", 0) == 0) {
            int lid = -1, port = -1;
            const auto l = line.find("Lid "), p = line.find(" port ");
            if (l != std::string::npos) lid = std::atoi(line.c_str() + l + 4);
            if (p != std::string::npos) port = std::atoi(line.c_str() + p + 6);
            entity = "ib-lid" + std::to_string(lid) + "/port" + std::to_string(port);
            res.entities.push_back({entity, "ib_port", "ib-lid" + std::to_string(lid), "", {}});
            continue;
        }
        const auto colon = line.find(':');
        if (line[0] == '#') continue;
        if (colon == std::string::npos) {
            res.warnings.push_back({reader.location(), "syntax", "expected Name:....value"});
            continue;
        }
        const std::string key = line.substr(0, colon);
        std::string val = line.substr(colon + 1);
        val.erase(0, val.find_first_not_of('.'));
        double v = 0;
        if (val.rfind("0x", 0) == 0) continue;  // selects and masks are not counters
        if (!detail::parseNumber(val, v) || !std::isfinite(v)) {
            res.warnings.push_back({reader.location(), "bad_value", key + ": \"" + val + "\" is not a counter"});
            continue;
        }
        // Data counters count 4-byte words.
        if (key == "PortXmitData" || key == "PortRcvData") {
            res.samples.push_back({entity, key == "PortXmitData" ? "xmit_bytes" : "rcv_bytes", "B", opt.default_time_s, v * 4});
        } else {
            std::string m;
            for (char c : key) {
                if (std::isupper(static_cast<unsigned char>(c)) && !m.empty()) m += '_';
                m += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            res.samples.push_back({entity, m, "count", opt.default_time_s, v});
        }
    }
    return res;
}

namespace format_rows {

FormatInfo ibPerfquery() {
    FormatInfo f;
    f.id = "ib-perfquery";
    f.label = "InfiniBand perfquery counters";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        if (h.has("# Port counters:") || h.has("# Port extended counters:") || h.has("# PortRcvErrorDetails counters:") ||
            h.has("PortXmitData:") || h.has("PortRcvData:"))
            return {90, "Port counters"};
        return {};
    };
    f.parse = parsePerfquery;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
