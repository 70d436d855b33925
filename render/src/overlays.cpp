// The table of the 3D view's overlays (overlays.hpp): one row each.
#include <clustertwin/render/overlays.hpp>

namespace ct::render {

const std::vector<OverlayInfo>& overlayTable() {
    static const std::vector<OverlayInfo> table = {
        {"slice", "Slice", "horizontal slice of the air temperature", "overlaySlice", &Overlays::floor_slice, true,
         &Overlays::slice_height_m, "HEIGHT (m)", 0.1, 10, 0.25},
        {"aisle-slice", "Aisle slice", "vertical slice of the air temperature along the first aisle", "overlayAisle",
         &Overlays::aisle_slice, true},
        {"iso", "Isosurface", "isosurface of the air temperature (27 °C: ASHRAE's recommended inlet limit)", "overlayIso",
         &Overlays::isosurface, true, &Overlays::iso_c, "C (°C)", 10, 60, 1},
        {"streamlines", "Streamlines", "streamlines of the air from the supply openings", "overlayStreamlines", &Overlays::streamlines,
         true},
        {"links", "Links", "fabric links coloured by utilization", "overlayLinks", &Overlays::links, false},
        {"labels", "Labels", "names of rows, racks and cooling units", "overlayLabels", &Overlays::labels, false},
    };
    return table;
}

const OverlayInfo* findOverlay(std::string_view id) {
    for (const auto& o : overlayTable())
        if (o.id == id) return &o;
    return nullptr;
}

bool needsAir(const Overlays& o) {
    for (const auto& info : overlayTable())
        if (info.needs_air && o.*info.flag) return true;
    return false;
}

void applyOverlaySettings(Overlays& o, const std::map<std::string, double>& settings) {
    for (const auto& [id, v] : settings) {
        const OverlayInfo* info = findOverlay(id);
        if (!info) continue;
        if (info->value) {
            o.*info->flag = v >= 0;
            if (v >= 0) o.*info->value = v;
        } else {
            o.*info->flag = v != 0;
        }
    }
}

}  // namespace ct::render
