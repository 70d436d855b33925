#pragma once
// Private pieces of the scenario reader and writer shared by its files (scenario_io.cpp: the document, power,
// jobs and events; scenario_io_hall.cpp: halls and what stands in them).
#include "json_util.hpp"

namespace ct::model::detail {

/// Reads an array of objects at `key` into `out`, each through fn(reader, element); unknown keys become extras.
template <class T, class F>
void readList(ObjReader& r, const char* key, bool required, std::vector<T>& out, Diagnostics& d, F&& fn) {
    r.forEach(key, required, [&](const json& e, const std::string& p) {
        ObjReader er(e, p, d);
        if (!er.valid()) return;
        T x;
        fn(er, x);
        x.extra = er.finish();
        out.push_back(std::move(x));
    });
}

inline void putIfNotEmpty(ojson& o, const char* key, const std::string& v) {
    if (!v.empty()) o[key] = v;
}

inline ojson vec2(const Vec2& v) { return ojson::array({num(v.x_m), num(v.y_m)}); }

void readHall(ObjReader& r, Hall& h, Diagnostics& d);
ojson writeHall(const Hall& h);

void readNetwork(ObjReader& r, Network& n, Diagnostics& d);
ojson writeNetwork(const Network& n);

}  // namespace ct::model::detail
