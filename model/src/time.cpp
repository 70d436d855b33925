#include <clustertwin/model/error.hpp>
#include <clustertwin/model/time.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
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

std::optional<double> parseUtcOffset(std::string_view z) {
    if (z == "Z" || z == "UTC" || z == "GMT" || z == "utc") return 0.0;
    if (z.size() < 3 || (z[0] != '+' && z[0] != '-')) return std::nullopt;
    const double sign = z[0] == '+' ? 1 : -1;
    std::string digits;
    for (std::size_t i = 1; i < z.size(); ++i) {
        if (z[i] == ':' && i == 3) continue;  // +05:30
        if (!std::isdigit(static_cast<unsigned char>(z[i]))) return std::nullopt;
        digits += z[i];
    }
    if (digits.size() != 2 && digits.size() != 4) return std::nullopt;  // +05, +0530, +05:30
    if (z.size() == 6 && z[3] != ':') return std::nullopt;
    const int hh = std::stoi(digits.substr(0, 2)), mm = digits.size() == 4 ? std::stoi(digits.substr(2, 2)) : 0;
    if (hh > 14 || mm > 59) return std::nullopt;
    return sign * (hh * 3600 + mm * 60);
}

bool parseIsoTime(std::string_view s, double& out, double zoneless_offset_s) {
    int Y, M, D, h, m;
    double sec;
    char tail[16] = {0};
    const std::string str(s);
    const int n = std::sscanf(str.c_str(), "%4d-%2d-%2d%*[T ]%2d:%2d:%lf%15s", &Y, &M, &D, &h, &m, &sec, tail);
    if (n < 6) return false;
    std::tm tm{};
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = 0;
    double t = static_cast<double>(timegm(&tm)) + sec;
    const std::string z(tail);
    if (z.empty()) {
        t -= zoneless_offset_s;
    } else {
        const auto off = parseUtcOffset(z);
        if (!off) return false;
        t -= *off;
    }
    out = t;
    return true;
}

std::string formatIsoTime(double unix_s) {
    const std::time_t t = static_cast<std::time_t>(std::floor(unix_s));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace ct::model
