// The scene's colours (Scene::Impl): the metrics and their ranges, recolouring racks, nodes, units and links
// from a frame, the hint that explains empty colours, and the colour bars.
#include "scene_impl.hpp"

#include <vtkVariant.h>

namespace ct::render {

namespace {

const std::vector<MetricInfo> kMetrics = {
    {"inlet_c", "Node inlet (°C)", 15, 40, false, true},
    {"gpu_temp_c", "GPU temperature, hottest (°C)", 30, 90, false, true},
    {"power_kw", "Node power (kW)", 0, 0, false, true},
    {"gpu_util", "GPU utilization (%)", 0, 100, false, true},
    {"throttle", "GPU clocks, lowest (%)", 50, 100, false, true, true},
    {"rack_power_kw", "Rack power (kW)", 0, 0, true, true},
    {"rack_inlet_c", "Rack inlet, hottest intake (°C)", 15, 40, true, true},
    {"exhaust_c", "Rack exhaust (°C)", 15, 55, true, true},
    {"capture_index", "Rack Capture Index, cold aisle (%)", 0, 100, true, true, true},
    {"nameplate_kw", "Node nameplate (kW)", 0, 0, false, false},
    {"inlet_delta_c", "Node inlet change vs baseline (K)", -5, 5, false, true},
    {"inlet_residual_c", "Node inlet, simulated − measured (K)", -5, 5, false, true},
};

}  // namespace

const std::vector<MetricInfo>& metrics() { return kMetrics; }

const MetricInfo& metricInfo(const std::string& id) {
    for (const auto& m : kMetrics)
        if (m.id == id) return m;
    std::string known;
    for (const auto& m : kMetrics) known += (known.empty() ? "" : ", ") + m.id;
    throw RenderError("unknown metric '" + id + "' (" + known + ")");
}

double Scene::Impl::metricHi(const MetricInfo& m) const {
    if (m.hi > 0) return m.hi;
    const auto& v = m.rack_level ? rack_nameplate_kw : node_nameplate_kw;
    double hi = 1;
    for (double x : v) hi = std::max(hi, x);
    // Up to a round value, so that the colour bar's ends are labelled too (0…12, not 0…11).
    const double step = model::niceTicks(0, hi, 6).step;
    return std::ceil(hi / step - 1e-9) * step;
}

void Scene::Impl::updateHint(const MetricInfo& m, const model::Frame* f, const std::vector<double>& nv) {
    // Issue 16: grey nodes or one flat colour with no word about why.
    std::string label = m.label;
    if (auto p = label.find(" ("); p != std::string::npos) label.erase(p);  // "Node inlet (°C)" -> "Node inlet"
    for (auto& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::size_t n = 0;
    for (double v : nv)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v), ++n;
    char buf[256];
    if (m.needs_frame && !f) {
        hint = "No values yet to colour by " + label + ":\nrun a simulation (Simulation > Run, F5) or open a run (File > Open run).";
    } else if (n == 0 && nodes.size() > 0) {
        hint = "This run records no " + label + " for these nodes:\npick another colouring.";
    } else if (n > 1 && hi - lo < 1e-9 * std::max(1.0, std::abs(hi))) {
        std::snprintf(buf, sizeof buf, "All nodes have the same value: %.4g%s (%s).\n%s", hi,
                      m.label.find("(kW)") != std::string::npos   ? " kW"
                      : m.label.find("(°C)") != std::string::npos ? " °C"
                                                                  : "",
                      label.c_str(), f ? "Pick another colouring to see differences." : "Run a simulation (F5) to colour by what differs.");
        hint = buf;
    } else {
        hint.clear();
    }
    hint_actor->SetInput(hint.c_str());
    hint_actor->SetVisibility(show_hint && !hint.empty());
}

void Scene::Impl::recolour(const model::Frame* f) {
    const MetricInfo& m = metricInfo(metric);
    const double hi = metricHi(m);
    // The tables and the bar only when the metric's scale changed: a rebuilt table makes the colour bar lay out
    // its text again, which every frame of a replay would pay.
    const std::array<double, 3> scale{m.lo, hi, m.high_is_good ? 1.0 : 0.0};
    if (scale != lut_scale) {
        lut_scale = scale;
        node_lut->SetTableRange(m.lo, hi);
        rack_lut->SetTableRange(m.lo, hi);
        for (vtkLookupTable* lut : {node_lut.Get(), rack_lut.Get()}) {
            lut->SetHueRange(m.high_is_good ? 0.0 : 0.66, m.high_is_good ? 0.66 : 0.0);
            lut->ForceBuild();
        }
    }
    std::vector<double> nv(nodes.size(), kNaN), rv(racks.size(), kNaN);
    metricValues(m, f, nv, rv);
    updateHint(m, f, nv);
    for (std::size_t i = 0; i < nodes.size(); ++i) nodes.set(i, nv[i]);
    for (std::size_t i = 0; i < racks.size(); ++i) racks.set(i, rv[i]);
    nodes.changed();
    racks.changed();
    node_values = std::move(nv);
    rack_values = std::move(rv);
    worst_is_low = m.high_is_good;
    updateLod(true);  // far racks take their worst node's new value
    recolourUnits(f);
    recolourSensors(f);
    recolourLinks(f);
    link_mapper->SetScalarVisibility(f != nullptr);
    link_actor->GetProperty()->SetColor(0.6, 0.62, 0.66);
    link_actor->GetProperty()->SetOpacity(f ? 1.0 : 0.3);  // before a run: the fabric's shape, faint
    link_actor->SetVisibility(ov.links && !idleLinksHidden());
    switches->actor->SetVisibility(ov.links);
    label_actor->SetVisibility(ov.labels && !fast);
    showLinkLabels();
    updateBars();
}

void Scene::Impl::metricValues(const MetricInfo& m, const model::Frame* f, std::vector<double>& nv, std::vector<double>& rv) const {
    if (m.id == "nameplate_kw") {
        nv = node_nameplate_kw;
    } else if (f) {
        if (m.id == "inlet_c" || m.id == "power_kw" || m.id == "inlet_delta_c" || m.id == "inlet_residual_c") {
            for (const auto& n : f->nodes)
                if (auto it = node_index.find(n.id); it != node_index.end())
                    nv[it->second] = m.id == "power_kw" ? n.power_ac_w / 1000.0 : n.inlet_c;
        } else if (m.id == "gpu_temp_c" || m.id == "gpu_util" || m.id == "throttle") {
            std::vector<double> acc(nodes.size(), kNaN);
            std::vector<int> cnt(nodes.size(), 0);
            for (const auto& g : f->gpus) {
                auto it = node_index.find(nodeOfGpu(g.id));
                if (it == node_index.end()) continue;
                const double v = m.id == "gpu_temp_c" ? g.temp_c : m.id == "gpu_util" ? 100 * g.utilization : 100 * g.throttle;
                if (std::isnan(v)) continue;
                double& a = acc[it->second];
                if (std::isnan(a)) a = v;
                else if (m.id == "gpu_temp_c") a = std::max(a, v);
                else if (m.id == "throttle") a = std::min(a, v);
                else a += v;
                ++cnt[it->second];
            }
            for (std::size_t i = 0; i < nodes.size(); ++i) nv[i] = (m.id == "gpu_util" && cnt[i] > 0) ? acc[i] / cnt[i] : acc[i];
        } else {  // rack-level
            for (const auto& r : f->racks)
                if (auto it = rack_index.find(r.id); it != rack_index.end())
                    rv[it->second] = m.id == "rack_power_kw"   ? r.power_w / 1000.0
                                     : m.id == "rack_inlet_c"  ? r.inlet_max_c
                                     : m.id == "capture_index" ? 100.0 * r.capture_index
                                                               : r.exhaust_c;
            for (std::size_t r = 0; r < racks.size(); ++r)
                for (int n : rack_nodes[r]) nv[n] = rv[r];
        }
        // Failed nodes show as "no data" whatever the metric.
        for (const auto& n : f->nodes)
            if (n.failed || !n.powered)
                if (auto it = node_index.find(n.id); it != node_index.end()) nv[it->second] = kNaN;
    }
}

void Scene::Impl::recolourSensors(const model::Frame* f) {
    for (std::size_t i = 0; i < sensor_boxes->size(); ++i) sensor_boxes->set(i, kNaN);
    if (f)
        for (const auto& x : f->sensors)
            if (auto it = sensor_index.find(x.id); it != sensor_index.end())
                sensor_boxes->set(static_cast<std::size_t>(it->second), x.temp_c);
    sensor_boxes->changed();
}

void Scene::Impl::recolourUnits(const model::Frame* f) {
    std::vector<double> uv = unit_kind;
    if (f) {
        for (const auto& u : f->cooling_units)
            if (u.failed)
                if (auto it = unit_index.find(u.id); it != unit_index.end()) uv[static_cast<std::size_t>(it->second)] = 2;
        for (const auto& u : f->cdus)
            if (u.failed)
                if (auto it = unit_index.find(u.id); it != unit_index.end()) uv[static_cast<std::size_t>(it->second)] = 2;
    }
    for (std::size_t i = 0; i < units.size(); ++i) units.set(i, uv[i]);
    units.changed();
    // Rear doors: red when their water loop has failed.
    for (std::size_t i = 0; i < doors.size(); ++i) {
        bool failed = false;
        if (f)
            for (const auto& l : f->loops) failed = failed || (l.failed && l.id == door_loop[i]);
        doors.set(i, failed ? 1 : 0);
    }
    doors.changed();
}

void Scene::Impl::recolourLinks(const model::Frame* f) {
    // Links: the busiest link of each line; links the frame does not list carry nothing; failed ones red.
    std::vector<double> lv(lines.size(), f ? 0.0 : kNaN);
    std::vector<char> failed(lines.size(), 0);
    std::vector<std::string> busiest(lines.size());
    if (f)
        for (const auto& l : f->links) {
            auto it = line_of_link.find(l.id);
            if (it == line_of_link.end()) continue;
            if (l.failed) {
                failed[it->second] = 1;
            } else if (!std::isnan(l.utilization) && (busiest[it->second].empty() || 100 * l.utilization > lv[it->second])) {
                lv[it->second] = 100 * l.utilization;
                busiest[it->second] = l.id;
            }
        }
    for (std::size_t i = 0; i < lines.size(); ++i) link_value->SetValue(static_cast<vtkIdType>(i), failed[i] ? kNaN : lv[i]);
    link_value->Modified();
    link_pd->Modified();
    // The busy ones again, thick (the thin line under them is hidden by them; fast frames of large halls draw only
    // these: idle and failed lines return in the frame that stays).
    vtkNew<vtkCellArray> busy;
    busy_link_value->Reset();
    busy_links = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (failed[i] || !(lv[i] >= 50)) continue;
        const vtkIdType ids[2] = {lines[i].a_end, lines[i].b_end};
        busy->InsertNextCell(2, ids);
        busy_link_value->InsertNextValue(lv[i]);
        ++busy_links;
    }
    busy_link_pd->SetLines(busy);
    busy_link_value->Modified();
    busy_link_pd->Modified();
    busy_link_actor->SetVisibility(ov.links && busy_links > 0);
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (failed[i]) lv[i] = kNaN;
    labelHotLinks(lv, busiest);
}

void Scene::Impl::updateBars() {
    const MetricInfo& m = metricInfo(metric);
    metric_bar->SetLookupTable(m.rack_level ? rack_lut.Get() : node_lut.Get());
    metric_bar->SetTitle(m.label.c_str());
    const double* range = (m.rack_level ? rack_lut : node_lut)->GetTableRange();
    if (bar_range[0] != range[0] || bar_range[1] != range[1]) {
        niceLabels(metric_bar, range[0], range[1]);
        bar_range = {range[0], range[1]};
    }
    // An inlet temperature's bar marks ASHRAE's recommended range ("rec. 18", "rec. 27" °C) and class A1's
    // allowable limit ("A1 32") where they fall on it (Thermal Guidelines for Data Processing Environments, 5th ed.).
    for (vtkLookupTable* lut : {node_lut.Get(), rack_lut.Get()}) lut->ResetAnnotations();
    const bool ashrae = m.id == "inlet_c" || m.id == "rack_inlet_c";
    if (ashrae) {
        vtkLookupTable* lut = m.rack_level ? rack_lut.Get() : node_lut.Get();
        lut->SetAnnotation(vtkVariant(18.0), "rec. 18");
        lut->SetAnnotation(vtkVariant(27.0), "rec. 27");
        if (32.0 < range[1]) lut->SetAnnotation(vtkVariant(32.0), "A1 32");
    }
    metric_bar->SetDrawAnnotations(ashrae);
    metric_bar->SetVisibility(m.needs_frame ? has_frame : true);
    link_bar->SetVisibility(ov.links && has_frame && !lines.empty() && !narrow);
    const bool any_air = !air.empty() && (ov.floor_slice || ov.aisle_slice || ov.isosurface || ov.streamlines);
    air_bar->SetVisibility(any_air && !narrow);
}

}  // namespace ct::render
