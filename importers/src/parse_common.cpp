#include "parse_common.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace ct::importers::detail {

bool validUtf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        std::size_t n;
        if (c < 0x80) n = 0;
        else if ((c >> 5) == 6) n = 1;
        else if ((c >> 4) == 14) n = 2;
        else if ((c >> 3) == 30) n = 3;
        else return false;
        if (i + n >= s.size() && n > 0) return false;
        for (std::size_t k = 1; k <= n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
        i += n + 1;
    }
    return true;
}

std::size_t jsonErrorLine(const std::string& text, const std::exception& e) {
    const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e);
    const auto upto = text.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(pe ? pe->byte : 0, text.size()));
    return 1 + static_cast<std::size_t>(std::count(text.begin(), upto, '\n'));
}

bool LineReader::next(std::string& line) {
    while (std::getline(in_, line)) {
        ++lineno_;
        bytes_ += line.size() + 1;
        if (progress_ && (lineno_ % 4096) == 0 &&
            !progress_(size_hint_ ? std::min(1.0, static_cast<double>(bytes_) / static_cast<double>(size_hint_)) : 0.0)) {
            res_.cancelled = true;
            return false;
        }
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!validUtf8(line)) {
            res_.warnings.push_back({location(), "bad_utf8", "line is not valid UTF-8; skipped"});
            continue;
        }
        return true;
    }
    if (progress_) progress_(1.0);
    return false;
}

bool parseNumber(std::string_view s, double& out) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    if (s.empty()) return false;
    if (s == "NaN" || s == "nan") {
        out = std::nan("");
        return true;
    }
    if (s == "+Inf" || s == "Inf" || s == "inf") {
        out = HUGE_VAL;
        return true;
    }
    if (s == "-Inf" || s == "-inf") {
        out = -HUGE_VAL;
        return true;
    }
    const std::string tmp(s);
    char* end = nullptr;
    out = std::strtod(tmp.c_str(), &end);
    return end == tmp.c_str() + tmp.size();
}

bool parseIsoTime(std::string_view s, double& out) {
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
    if (!z.empty() && z != "Z") {
        int oh = 0, om = 0;
        char sign = 0;
        if (std::sscanf(z.c_str(), "%c%2d:%2d", &sign, &oh, &om) < 2 || (sign != '+' && sign != '-')) return false;
        t -= (sign == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    }
    out = t;
    return true;
}

} // namespace ct::importers::detail
