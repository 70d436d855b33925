// Format recognition over the table of formats (formats.hpp): every format's sniffer scores the file's first
// bytes, the best score wins (ties: the format registered first), and an extension that agrees adds a little.
#include <clustertwin/importers/format.hpp>
#include <clustertwin/importers/formats.hpp>

#include "input.hpp"

#include <algorithm>
#include <cctype>
#include <deque>

namespace ct::importers {

namespace format_rows {
#define CT_FORMAT(name) FormatInfo name();
#include "formats/all_formats.inc"
#undef CT_FORMAT
}  // namespace format_rows

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// The rows, in a deque so that a row's address stays put when another is added.
std::deque<FormatInfo>& table() {
    static std::deque<FormatInfo> rows = [] {
        std::deque<FormatInfo> d;
#define CT_FORMAT(name) d.push_back(format_rows::name());
#include "formats/all_formats.inc"
#undef CT_FORMAT
        return d;
    }();
    return rows;
}

}  // namespace

std::string_view toString(FormatKind k) {
    switch (k) {
        case FormatKind::Samples:
            return "samples";
        case FormatKind::Jobs:
            return "jobs";
        case FormatKind::Inventory:
            return "inventory";
        case FormatKind::Topology:
            return "topology";
    }
    return "samples";
}

std::vector<const FormatInfo*> formats() {
    std::vector<const FormatInfo*> out;
    for (const auto& f : table()) out.push_back(&f);
    return out;
}

const FormatInfo* findFormat(std::string_view id) {
    for (const auto& f : table())
        if (f.id == id) return &f;
    return nullptr;
}

void registerFormat(FormatInfo f) {
    for (auto& row : table())
        if (row.id == f.id) {
            row = std::move(f);
            return;
        }
    table().push_back(std::move(f));
}

std::string_view Detection::id() const { return format ? std::string_view(format->id) : std::string_view("unknown"); }

FileHead::FileHead(std::string_view file_name, std::string_view content) : name(lower(file_name)), head(content) {
    const auto nl = head.find('\n');
    first_line = nl == std::string_view::npos ? head : head.substr(0, nl);
    first_line_lower = lower(first_line);
    const auto start = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    first = start == std::string_view::npos ? '\0' : head[start];
}

Detection detectFormat(std::string_view file_name, std::string_view head) {
    const FileHead h(file_name, head);
    // Documentation and pictures beside telemetry (a README in a scrape directory) are never telemetry.
    for (const char* doc : {".md", ".rst", ".html", ".htm", ".pdf", ".png", ".jpg", ".svg"})
        if (endsWith(h.name, doc)) return {nullptr, 0, "documentation or image file"};
    // Content that says what it is not, though it looks like telemetry.
    if (h.text() && h.has("DCGM_FI_") && (h.has(", gauge,") || h.has(", counter,") || h.has(",gauge,")))
        return {nullptr, 0, "DCGM exporter counter list (configuration, no samples)"};
    Detection by_content;
    for (const FormatInfo* f : formats()) {
        if (!f->sniff) continue;
        Sniff s = f->sniff(h);
        if (s.score > by_content.score) by_content = {f, s.score, std::move(s.reason)};
    }
    Detection by_ext;
    for (const FormatInfo* f : formats())
        for (const auto& ext : f->extensions)
            if (endsWith(h.name, ext) && f->extension_score > by_ext.score) by_ext = {f, f->extension_score, "extension"};
    // Content that says what it is wins; the extension decides only when the content is silent.
    if (by_content) {
        if (by_content.format == by_ext.format) by_content.score = std::min(100, by_content.score + 5);
        return by_content;
    }
    if (h.xml())
        return {nullptr, 0, "XML without a root element any format recognises (no <nvidia_smi_log>: a Redfish $metadata document, say)"};
    if (by_ext) return by_ext;
    if (endsWith(h.name, ".csv"))
        return {nullptr, 0, "a CSV whose header no format recognises (neither nvidia-smi's nor time,entity,metric,value)"};
    return {};
}

Detection detectFileFormat(const std::string& path) {
    detail::InputFile in(path);  // a .gz is recognised by what it holds, under its name without ".gz"
    std::string head(64 * 1024, '\0');
    in.stream().read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.stream().gcount()));
    return detectFormat(in.formatName(), head);
}

}  // namespace ct::importers
