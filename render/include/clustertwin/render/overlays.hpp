#pragma once
// The 3D view's overlays (what is drawn over the hall: air slices, the isosurface, streamlines, links, labels)
// and one table that describes each: the app's toolbar, the CLI's render options and help, and the tours'
// steps enumerate it. Adding an overlay: its flag here, its row in render/src/overlays.cpp, its drawing in a
// render/src/scene_*.cpp file (docs/architecture.md).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ct::render {

struct Overlays {
    bool floor_slice = false;  ///< horizontal slice of the air field
    double slice_height_m = 1.0;
    bool aisle_slice = false;  ///< vertical slice along the first aisle
    bool isosurface = false;
    double iso_c = 27.0;       ///< ASHRAE's recommended inlet limit
    bool streamlines = false;  ///< from the supply openings
    bool links = true;         ///< fabric links coloured by utilization
    bool labels = true;
    int max_link_lines = 400;  ///< more links than this are bundled per rack pair
};

struct OverlayInfo {
    std::string id;           ///< the CLI option (--id, or --no-id for one on by default) and the tours' key
    std::string label;        ///< the toolbar's button
    std::string help;         ///< tooltip and help line
    std::string object_name;  ///< the toolbar action's object name (tests and tours find it by it)
    bool Overlays::*flag = nullptr;
    bool needs_air = false;             ///< draws a run's air field
    double Overlays::*value = nullptr;  ///< its number (slice height, isosurface temperature), or none
    std::string value_name;             ///< what the number is, with its unit: "HEIGHT (m)"
    double value_min = 0, value_max = 0, value_step = 0;
};

/// Every overlay, in the toolbar's order.
const std::vector<OverlayInfo>& overlayTable();
/// The overlay with this id, or null.
const OverlayInfo* findOverlay(std::string_view id);
/// Whether any overlay that draws the air field is on.
bool needsAir(const Overlays& o);
/// Sets overlays from settings by id (a tour step's): for a flag, 0 or 1; for an overlay with a number, the
/// number, or a negative one to turn it off. Unknown ids are ignored (a tour's reader refuses them).
void applyOverlaySettings(Overlays& o, const std::map<std::string, double>& settings);

}  // namespace ct::render
