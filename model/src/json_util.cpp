#include "json_util.hpp"

#include <cmath>
#include <limits>

namespace ct::model::detail {

std::string ptrJoin(const std::string& ptr, std::string_view key) {
    std::string out = ptr;
    out += '/';
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string ptrJoin(const std::string& ptr, std::size_t index) { return ptr + "/" + std::to_string(index); }

std::string typeName(const json& j) {
    switch (j.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::object:
            return "an object";
        case json::value_t::array:
            return "an array";
        case json::value_t::string:
            return "a string";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float:
            return "a number";
        default:
            return "an unsupported value";
    }
}

void lineColumn(std::string_view text, std::size_t byte_offset, int& line, int& column) {
    line = 1;
    column = 1;
    const std::size_t end = std::min(byte_offset, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++column;  // count UTF-8 code points, not continuation bytes
        }
    }
}

json parseJson(std::string_view text, const std::string& file) {
    try {
        return json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        int line = 0, column = 0;
        // e.byte is the 1-based index of the offending byte.
        lineColumn(text, e.byte > 0 ? e.byte - 1 : 0, line, column);
        std::string msg = e.what();
        // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
        if (auto pos = msg.find(": "); pos != std::string::npos && msg.rfind("[json.exception", 0) == 0) msg = msg.substr(pos + 2);
        // The "last read" excerpt may hold the broken bytes themselves; keep messages valid text.
        for (char& ch : msg)
            if (static_cast<unsigned char>(ch) >= 0x80) ch = '?';
        throw ParseError(file, line, column, "JSON syntax error: " + msg);
    } catch (const json::exception& e) {
        // Raised while parsing (number overflow: "... parsing '1e999'"); locate the quoted token.
        std::string msg = e.what();
        if (auto pos = msg.find("] "); pos != std::string::npos) msg = msg.substr(pos + 2);
        int line = 0, column = 0;
        const auto q1 = msg.find('\''), q2 = msg.rfind('\'');
        if (q1 != std::string::npos && q2 > q1) {
            const auto at = text.find(msg.substr(q1 + 1, q2 - q1 - 1));
            if (at != std::string_view::npos) lineColumn(text, at, line, column);
        }
        throw ParseError(file, line, column, "JSON error: " + msg);
    }
}

ObjReader::ObjReader(const json& j, std::string ptr, Diagnostics& d) : ptr_(std::move(ptr)), d_(d) {
    if (j.is_object()) obj_ = &j;
    else error(ptr_.empty() ? "" : ptr_, "expected an object, got " + typeName(j));
}

void ObjReader::error(const std::string& ptr, const std::string& msg) { d_.push_back({Severity::Error, ptr.empty() ? "/" : ptr, msg}); }

const json* ObjReader::member(std::string_view key, bool required) {
    if (!obj_) return nullptr;
    used_.insert(std::string(key));
    auto it = obj_->find(key);
    if (it == obj_->end()) {
        if (required) error(pointer(key), "missing required field '" + std::string(key) + "'");
        return nullptr;
    }
    return &*it;
}

bool ObjReader::get(std::string_view key, double& out, bool required) {
    const json* j = member(key, required);
    if (!j) return false;
    if (!j->is_number()) {
        error(pointer(key), "expected a number, got " + typeName(*j));
        return false;
    }
    const double v = j->get<double>();
    if (!std::isfinite(v)) {
        error(pointer(key), "number out of range");
        return false;
    }
    out = v;
    return true;
}

bool ObjReader::get(std::string_view key, std::optional<double>& out, bool required) {
    double v = 0;
    if (!get(key, v, required)) return false;
    out = v;
    return true;
}

bool ObjReader::get(std::string_view key, int& out, bool required) {
    const json* j = member(key, required);
    if (!j) return false;
    if (!j->is_number()) {
        error(pointer(key), "expected an integer, got " + typeName(*j));
        return false;
    }
    const double v = j->get<double>();
    if (!std::isfinite(v) || v != std::floor(v)) {
        error(pointer(key), "expected an integer, got " + j->dump());
        return false;
    }
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
        error(pointer(key), "integer out of range: " + j->dump());
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

bool ObjReader::get(std::string_view key, bool& out, bool required) {
    const json* j = member(key, required);
    if (!j) return false;
    if (!j->is_boolean()) {
        error(pointer(key), "expected true or false, got " + typeName(*j));
        return false;
    }
    out = j->get<bool>();
    return true;
}

bool ObjReader::get(std::string_view key, std::string& out, bool required) {
    const json* j = member(key, required);
    if (!j) return false;
    if (!j->is_string()) {
        error(pointer(key), "expected a string, got " + typeName(*j));
        return false;
    }
    out = j->get<std::string>();
    return true;
}

bool ObjReader::get(std::string_view key, std::vector<std::string>& out, bool required) {
    const json* j = member(key, required);
    if (!j) return false;
    if (!j->is_array()) {
        error(pointer(key), "expected an array of strings, got " + typeName(*j));
        return false;
    }
    std::vector<std::string> v;
    bool ok = true;
    for (std::size_t i = 0; i < j->size(); ++i) {
        const json& e = (*j)[i];
        if (!e.is_string()) {
            error(ptrJoin(pointer(key), i), "expected a string, got " + typeName(e));
            ok = false;
            continue;
        }
        v.push_back(e.get<std::string>());
    }
    out = std::move(v);
    return ok;
}

bool ObjReader::get(std::string_view key, Vec2& out, bool required) {
    const json* j = member(key, required);
    if (!j) return false;
    if (!j->is_array() || j->size() != 2 || !(*j)[0].is_number() || !(*j)[1].is_number()) {
        error(pointer(key), "expected [x, y] in metres, got " + (j->is_array() ? j->dump() : typeName(*j)));
        return false;
    }
    const double x = (*j)[0].get<double>(), y = (*j)[1].get<double>();
    if (!std::isfinite(x) || !std::isfinite(y)) {
        error(pointer(key), "number out of range");
        return false;
    }
    out = {x, y};
    return true;
}

bool ObjReader::get(std::string_view key, Facing& out, bool required) {
    std::string s;
    if (!get(key, s, required)) return false;
    auto f = facingFromString(s);
    if (!f) {
        error(pointer(key), "expected one of north, east, south, west, got '" + s + "'");
        return false;
    }
    out = *f;
    return true;
}

void ObjReader::forEach(std::string_view key, bool required, const std::function<void(const json&, const std::string&)>& fn) {
    const json* j = member(key, required);
    if (!j) return;
    if (!j->is_array()) {
        error(pointer(key), "expected an array, got " + typeName(*j));
        return;
    }
    for (std::size_t i = 0; i < j->size(); ++i) fn((*j)[i], ptrJoin(pointer(key), i));
}

Extras ObjReader::finish() {
    Extras extras;
    if (!obj_) return extras;
    for (auto it = obj_->begin(); it != obj_->end(); ++it) {
        if (used_.count(it.key())) continue;
        d_.push_back({Severity::Warning, ptrJoin(ptr_, it.key()), "unknown key '" + it.key() + "' (kept as is)"});
        extras[it.key()] = it.value().dump();
    }
    return extras;
}

ojson num(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
    return v;
}

void putExtras(ojson& o, const Extras& e) {
    for (const auto& [k, text] : e) o[k] = ojson::parse(text);
}

}  // namespace ct::model::detail
