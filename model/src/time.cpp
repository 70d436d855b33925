#include <clustertwin/model/error.hpp>
#include <clustertwin/model/time.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

namespace ct::model {

double parseDurationS(std::string_view text) {
    const std::string orig(text);
    if (text.empty()) throw ModelError("empty duration");
    double total = 0;
    std::size_t i = 0;
    bool any = false;
    while (i < text.size()) {
        std::size_t start = i;
        while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
        if (i == start) throw ModelError("bad duration '" + orig + "': expected a number like 90s, 15m, 1h");
        double v = 0;
        try {
            v = std::stod(std::string(text.substr(start, i - start)));
        } catch (const std::exception&) {
            throw ModelError("bad duration '" + orig + "'");
        }
        std::size_t u0 = i;
        while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
        std::string_view unit = text.substr(u0, i - u0);
        double scale = 0;
        if (unit.empty() || unit == "s") scale = 1;
        else if (unit == "ms") scale = 1e-3;
        else if (unit == "m" || unit == "min") scale = 60;
        else if (unit == "h") scale = 3600;
        else if (unit == "d") scale = 86400;
        else throw ModelError("bad duration '" + orig + "': unknown unit '" + std::string(unit) + "' (use ms, s, m, h, d)");
        total += v * scale;
        any = true;
    }
    if (!any || !std::isfinite(total)) throw ModelError("bad duration '" + orig + "'");
    return total;
}

std::string formatDuration(double seconds) {
    if (!std::isfinite(seconds)) return "?";
    char buf[64];
    const long long s = std::llround(seconds);
    if (s < 60) {
        std::snprintf(buf, sizeof buf, "%.3gs", seconds);
    } else if (s < 3600) {
        std::snprintf(buf, sizeof buf, "%lldm %02llds", s / 60, s % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%lldh %02lldm %02llds", s / 3600, (s / 60) % 60, s % 60);
    }
    return buf;
}

} // namespace ct::model
