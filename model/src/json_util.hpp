#pragma once
// Private helpers for reading JSON into model structs while collecting diagnostics with JSON pointers,
// and for writing canonical JSON. Not installed: nlohmann/json stays out of public headers.
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ct::model::detail {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

/// `ptr` + "/" + `key` with RFC 6901 escaping.
std::string ptrJoin(const std::string& ptr, std::string_view key);
std::string ptrJoin(const std::string& ptr, std::size_t index);
/// "a string", "an array", ... for messages.
std::string typeName(const json& j);

/// Line and column (1-based) of a byte offset in text.
void lineColumn(std::string_view text, std::size_t byte_offset, int& line, int& column);

/// Parses JSON text; throws ParseError with line/column on a syntax error.
json parseJson(std::string_view text, const std::string& file);

/// Reads fields of one JSON object, recording which keys were consumed; finish() warns about the rest and
/// returns them as Extras. Every problem becomes a Diagnostic with the field's JSON pointer.
class ObjReader {
public:
    ObjReader(const json& j, std::string ptr, Diagnostics& d);
    bool valid() const { return obj_ != nullptr; }
    const std::string& pointer() const { return ptr_; }
    std::string pointer(std::string_view key) const { return ptrJoin(ptr_, key); }

    /// Each returns true when the key was present and of the right type (out is left untouched otherwise).
    bool get(std::string_view key, double& out, bool required = false);
    bool get(std::string_view key, int& out, bool required = false);
    bool get(std::string_view key, bool& out, bool required = false);
    bool get(std::string_view key, std::string& out, bool required = false);
    bool get(std::string_view key, std::optional<double>& out, bool required = false);
    bool get(std::string_view key, std::vector<std::string>& out, bool required = false);
    bool get(std::string_view key, Vec2& out, bool required = false);
    bool get(std::string_view key, Facing& out, bool required = false);

    /// The member, marked as used; nullptr if absent (an error if required).
    const json* member(std::string_view key, bool required = false);

    /// Calls fn(element, pointer) for each element of an array member.
    void forEach(std::string_view key, bool required, const std::function<void(const json&, const std::string&)>& fn);

    Extras finish();

    /// Records an error at `ptr`.
    void error(const std::string& ptr, const std::string& msg);

private:
    const json* obj_ = nullptr;
    std::string ptr_;
    Diagnostics& d_;
    std::set<std::string, std::less<>> used_;
};

/// Writes a number so that integral values stay integers ("42", not "42.0").
ojson num(double v);
/// Appends extras (unknown keys kept from loading) to an object.
void putExtras(ojson& o, const Extras& e);

}  // namespace ct::model::detail
