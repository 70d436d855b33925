#include "parse_common.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace ct::importers::detail {

bool validUtf8(std::string_view s) {
    std::size_t i = 0;
    // ASCII eight bytes at a time (nearly every telemetry line), then the careful way from the first high bit.
    for (std::uint64_t w; i + 8 <= s.size(); i += 8) {
        std::memcpy(&w, s.data() + i, 8);
        if (w & 0x8080808080808080ULL) break;
    }
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

std::string jsonText(const nlohmann::json& obj, const char* key, const std::string& dflt) {
    if (!obj.is_object()) return dflt;
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : dflt;
}

bool jsonFlag(const nlohmann::json& obj, const char* key, bool dflt) {
    if (!obj.is_object()) return dflt;
    const auto it = obj.find(key);
    return it != obj.end() && it->is_boolean() ? it->get<bool>() : dflt;
}

bool LineReader::next(std::string& line) {
    while (std::getline(in_, line)) {
        ++lineno_;
        bytes_ += line.size() + 1;
        unterminated_ = in_.eof();
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

std::string defaultHost(const ParseOptions& opt, const std::string& fallback) {
    if (!opt.host.empty()) return opt.host;
    if (!opt.host_from_path) return fallback;
    std::string name = opt.file_name.substr(opt.file_name.find_last_of('/') + 1);
    name = name.substr(0, name.find('.'));
    return name.empty() ? fallback : name;
}

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r\n\v\f");
    if (b == std::string_view::npos) return {};
    return std::string(s.substr(b, s.find_last_not_of(" \t\r\n\v\f") - b + 1));
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
    // from_chars: no locale, no copy; strtod for what it does not take (a leading '+', hex floats).
    const char* b = s.data() + (s.front() == '+' && s.size() > 1 && s[1] != '-' ? 1 : 0);
    const auto r = std::from_chars(b, s.data() + s.size(), out);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return true;
    const std::string tmp(s);
    char* end = nullptr;
    out = std::strtod(tmp.c_str(), &end);
    return end == tmp.c_str() + tmp.size();
}

}  // namespace ct::importers::detail

namespace ct::importers {}  // namespace ct::importers

namespace ct::importers {

std::size_t jsonErrorLine(const std::string& text, const std::exception& e) {
    const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e);
    const auto upto = text.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(pe ? pe->byte : 0, text.size()));
    return 1 + static_cast<std::size_t>(std::count(text.begin(), upto, '\n'));
}

}  // namespace ct::importers
