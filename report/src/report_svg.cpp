#include "report_svg.hpp"

#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/time.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace ct::report::report {

namespace {

std::string num(double v, int decimals = 1) {
    char b[48];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

/// Round tick step for a span: 1, 2 or 5 × 10^k giving about `n` ticks.
double tickStep(double span, int n) {
    if (!(span > 0)) return 1;
    const double raw = span / n;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

}  // namespace

std::string esc(const std::string& s) {
    std::string r;
    r.reserve(s.size());
    for (char ch : s) {
        switch (ch) {
            case '&':
                r += "&amp;";
                break;
            case '<':
                r += "&lt;";
                break;
            case '>':
                r += "&gt;";
                break;
            case '"':
                r += "&quot;";
                break;
            default:
                r += ch;
        }
    }
    return r;
}

std::string colourOf(double v, double lo, double hi) {
    if (!std::isfinite(v)) return "#b0b0b0";
    const double f = std::clamp((v - lo) / std::max(1e-9, hi - lo), 0.0, 1.0);
    // Hue from blue (240°) to red (0°) at full saturation and value, as the 3D view's colour table.
    const double h = (1.0 - f) * 240.0 / 60.0;
    const int i = static_cast<int>(std::floor(h)) % 6;
    const double x = h - std::floor(h);
    double r = 0, g = 0, b = 0;
    switch (i) {
        case 0:
            r = 1, g = x, b = 0;
            break;
        case 1:
            r = 1 - x, g = 1, b = 0;
            break;
        case 2:
            r = 0, g = 1, b = x;
            break;
        case 3:
            r = 0, g = 1 - x, b = 1;
            break;
        default:
            r = 0, g = 0, b = 1;
            break;
    }
    char out[8];
    std::snprintf(out, sizeof out, "#%02x%02x%02x", static_cast<int>(std::lround(r * 255)), static_cast<int>(std::lround(g * 255)),
                  static_cast<int>(std::lround(b * 255)));
    return out;
}

std::string floorPlanSvg(const model::Scenario& s, const model::Catalog& c, const std::map<std::string, double>& value,
                         const std::set<std::string>& failed_units, double lo, double hi, int width_px, int max_height_px) {
    double x1 = 0, y1 = 0;
    for (const auto& h : s.halls) {
        x1 = std::max(x1, h.site_position_m.x_m + h.width_m);
        y1 = std::max(y1, h.site_position_m.y_m + h.depth_m);
    }
    if (!(x1 > 0) || !(y1 > 0)) return "<p>(no hall to draw)</p>";
    const int legend_h = 62;
    const double scale = std::min((width_px - 20) / x1, (max_height_px - 20) / y1);
    const int plan_h = static_cast<int>(std::ceil(y1 * scale)) + 20;
    width_px = std::max(static_cast<int>(std::ceil(x1 * scale)) + 20, std::min(width_px, 620));  // room for the legend
    const int height = plan_h + legend_h;
    // Plan y grows north; SVG y grows down.
    auto X = [&](double x) { return 10 + x * scale; };
    auto Y = [&](double y) { return 10 + (y1 - y) * scale; };
    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plan\" viewBox=\"0 0 " << width_px << " " << height << "\" width=\"" << width_px
      << "\" height=\"" << height << "\" role=\"img\" aria-label=\"floor plan coloured by rack inlet\">\n";
    const bool labels = scale * 0.6 >= 14;  // a rack's width can hold its number
    for (const auto& h : s.halls) {
        const double ox = h.site_position_m.x_m, oy = h.site_position_m.y_m;
        o << "<rect x=\"" << num(X(ox)) << "\" y=\"" << num(Y(oy + h.depth_m)) << "\" width=\"" << num(h.width_m * scale) << "\" height=\""
          << num(h.depth_m * scale) << "\" fill=\"#f4f4f2\" stroke=\"#555\" stroke-width=\"1.5\"><title>"
          << esc(h.name.empty() ? h.id : h.name) << "</title></rect>\n";
        if (s.halls.size() > 1)
            o << "<text x=\"" << num(X(ox) + 4) << "\" y=\"" << num(Y(oy + h.depth_m) + 14) << "\" class=\"hall\">"
              << esc(h.name.empty() ? h.id : h.name) << "</text>\n";
        for (const auto& u : h.cooling_units) {
            const auto* um = c.coolingUnit(u.model);
            if (!um) continue;
            const model::Box2 b = model::footprint(u.position_m, um->width_m, um->depth_m, u.facing);
            o << "<rect x=\"" << num(X(ox + b.x0)) << "\" y=\"" << num(Y(oy + b.y1)) << "\" width=\"" << num(b.width() * scale)
              << "\" height=\"" << num(b.depth() * scale) << "\" fill=\"" << (failed_units.count(u.id) ? "#e53935" : "#9fb8cc")
              << "\" stroke=\"#345\" stroke-width=\"0.8\"><title>" << esc(u.id) << " (" << esc(u.model) << ")"
              << (failed_units.count(u.id) ? ": failed" : "") << "</title></rect>\n";
        }
        for (const auto& row : h.rows)
            for (const auto& r : row.racks) {
                const auto* rm = c.rack(r.model);
                if (!rm) continue;
                const model::Box2 b = model::footprint(r.position_m, rm->width_m, rm->depth_m, r.facing);
                const auto it = value.find(r.id);
                const double v = it == value.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
                o << "<rect x=\"" << num(X(ox + b.x0)) << "\" y=\"" << num(Y(oy + b.y1)) << "\" width=\"" << num(b.width() * scale)
                  << "\" height=\"" << num(b.depth() * scale) << "\" fill=\"" << colourOf(v, lo, hi)
                  << "\" stroke=\"#222\" stroke-width=\"0.5\"><title>" << esc(r.id) << ": "
                  << (std::isfinite(v) ? num(v) + " °C" : "no value") << "</title></rect>\n";
                if (labels && std::isfinite(v))
                    o << "<text x=\"" << num(X(ox + (b.x0 + b.x1) / 2)) << "\" y=\"" << num(Y(oy + (b.y0 + b.y1) / 2) + 3)
                      << "\" class=\"rl\"" << (v < lo + 0.2 * (hi - lo) ? " fill=\"#fff\"" : "") << ">" << num(v, 0) << "</text>\n";
            }
    }
    // Legend: the colour scale with round ticks.
    const int lx = 10, ly = plan_h + 4, lw = std::min(360, width_px - 20);
    o << "<defs><linearGradient id=\"scale\">";
    for (int k = 0; k <= 10; ++k)
        o << "<stop offset=\"" << k * 10 << "%\" stop-color=\"" << colourOf(lo + (hi - lo) * k / 10.0, lo, hi) << "\"/>";
    o << "</linearGradient></defs>\n<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"" << lw
      << "\" height=\"12\" fill=\"url(#scale)\" stroke=\"#444\" stroke-width=\"0.5\"/>\n";
    const double step = tickStep(hi - lo, 5);
    for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9; t += step)
        o << "<text x=\"" << num(lx + (t - lo) / (hi - lo) * lw) << "\" y=\"" << ly + 26 << "\" class=\"tick\" text-anchor=\"middle\">"
          << num(t, 0) << "</text>\n";
    o << "<text x=\"" << lx << "\" y=\"" << ly + 44
      << "\" class=\"axis\">rack inlet, hottest level (°C); grey: no value; blue-grey: cooling units, red: failed</text>\n";
    o << "</svg>\n";
    return o.str();
}

std::string timeChartSvg(const std::string& y_label, const std::vector<ChartLine>& lines, const std::vector<ChartLimit>& limits,
                         const std::vector<ChartMark>& marks, int width_px, int height_px) {
    double t0 = std::numeric_limits<double>::infinity(), t1 = -t0, v0 = t0, v1 = -t0;
    for (const auto& l : lines)
        for (const auto& [t, v] : l.points) {
            if (!std::isfinite(v)) continue;
            t0 = std::min(t0, t);
            t1 = std::max(t1, t);
            v0 = std::min(v0, v);
            v1 = std::max(v1, v);
        }
    if (!std::isfinite(t0)) return "<p>(nothing recorded to chart)</p>";
    for (const auto& lim : limits) {  // the limits are always in view: the headroom is what a reader looks for
        v0 = std::min(v0, lim.value);
        v1 = std::max(v1, lim.value);
    }
    if (t1 <= t0) t1 = t0 + 1;
    const double pad = std::max(0.05 * (v1 - v0), 0.5);
    v0 -= pad;
    v1 += pad;
    const int ml = 56, mr = 16, mt = 14, mb = 42;
    const double pw = width_px - ml - mr, ph = height_px - mt - mb;
    auto X = [&](double t) { return ml + (t - t0) / (t1 - t0) * pw; };
    auto Y = [&](double v) { return mt + (v1 - v) / (v1 - v0) * ph; };
    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 " << width_px << " " << height_px << "\" width=\""
      << width_px << "\" height=\"" << height_px << "\">\n";
    o << "<rect x=\"" << ml << "\" y=\"" << mt << "\" width=\"" << num(pw) << "\" height=\"" << num(ph)
      << "\" fill=\"#fff\" stroke=\"#999\"/>\n";
    const double vs = tickStep(v1 - v0, 5);
    for (double v = std::ceil(v0 / vs) * vs; v <= v1; v += vs)
        o << "<line x1=\"" << ml << "\" x2=\"" << num(ml + pw) << "\" y1=\"" << num(Y(v)) << "\" y2=\"" << num(Y(v))
          << "\" stroke=\"#eee\"/><text x=\"" << ml - 6 << "\" y=\"" << num(Y(v) + 4) << "\" class=\"tick\" text-anchor=\"end\">"
          << num(v, vs < 1 ? 2 : 0) << "</text>\n";
    const double ts = tickStep(t1 - t0, 6);
    for (double t = std::ceil(t0 / ts) * ts; t <= t1 + 1e-9; t += ts)
        o << "<text x=\"" << num(X(t)) << "\" y=\"" << num(mt + ph + 16) << "\" class=\"tick\" text-anchor=\"middle\">"
          << esc(model::formatDuration(t)) << "</text>\n";
    o << "<text x=\"" << num(ml + pw / 2) << "\" y=\"" << height_px - 6
      << "\" class=\"axis\" text-anchor=\"middle\">time from the run's start</text>\n";
    o << "<text x=\"14\" y=\"" << num(mt + ph / 2) << "\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      << num(mt + ph / 2) << ")\">" << esc(y_label) << "</text>\n";
    for (const auto& lim : limits) {
        if (lim.value < v0 || lim.value > v1) continue;
        o << "<line x1=\"" << ml << "\" x2=\"" << num(ml + pw) << "\" y1=\"" << num(Y(lim.value)) << "\" y2=\"" << num(Y(lim.value))
          << "\" stroke=\"" << lim.colour << "\" stroke-dasharray=\"6 4\"/><text x=\"" << num(ml + pw - 4) << "\" y=\""
          << num(Y(lim.value) - 4) << "\" class=\"tick\" fill=\"" << lim.colour << "\" text-anchor=\"end\">" << esc(lim.label)
          << "</text>\n";
    }
    for (const auto& m : marks) {
        if (m.time_s < t0 || m.time_s > t1) continue;
        o << "<line x1=\"" << num(X(m.time_s)) << "\" x2=\"" << num(X(m.time_s)) << "\" y1=\"" << mt << "\" y2=\"" << num(mt + ph)
          << "\" stroke=\"#6a1b9a\" stroke-width=\"1.2\"><title>" << esc(model::formatDuration(m.time_s)) << ": " << esc(m.label)
          << "</title></line><text x=\"" << num(X(m.time_s) + 3) << "\" y=\"" << num(mt + ph - 4) << "\" class=\"tick\" fill=\"#6a1b9a\">"
          << esc(m.label) << "</text>\n";
    }
    int legend_x = ml + 8;
    for (const auto& l : lines) {
        std::ostringstream pts;
        // At most ~2 points per pixel column: long runs stay light.
        const std::size_t stride = std::max<std::size_t>(1, l.points.size() / static_cast<std::size_t>(2 * pw));
        for (std::size_t i = 0; i < l.points.size(); i += stride)
            if (std::isfinite(l.points[i].second)) pts << num(X(l.points[i].first)) << "," << num(Y(l.points[i].second)) << " ";
        if (!l.points.empty() && std::isfinite(l.points.back().second))
            pts << num(X(l.points.back().first)) << "," << num(Y(l.points.back().second));
        o << "<polyline fill=\"none\" stroke=\"" << l.colour << "\" stroke-width=\"1.8\" points=\"" << pts.str() << "\"/>\n";
        o << "<rect x=\"" << legend_x << "\" y=\"" << mt + 6 << "\" width=\"14\" height=\"3\" fill=\"" << l.colour << "\"/><text x=\""
          << legend_x + 18 << "\" y=\"" << mt + 11 << "\" class=\"tick\">" << esc(l.label) << "</text>\n";
        legend_x += 28 + static_cast<int>(l.label.size()) * 6;
    }
    o << "</svg>\n";
    return o.str();
}

}  // namespace ct::report::report
