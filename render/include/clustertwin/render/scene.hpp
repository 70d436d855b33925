#pragma once
// The 3D scene of a hall (no Qt): built once from a scenario, recoloured from frames. VTK types stay in the
// .cpp (contributing.md habit 2) so the app and the CLI include this without VTK's headers.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/render/overlays.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ct::render {

class RenderError : public Error {
public:
    using Error::Error;
};

/// A way to colour the racks' nodes. Rack-level metrics colour the whole rack.
struct MetricInfo {
    std::string id;         ///< "inlet_c", "power_kw", ...
    std::string label;      ///< for the scalar bar and pickers, with its unit
    double lo = 0, hi = 1;  ///< colour range (hi = 0: from the scenario's nameplates)
    bool rack_level = false;
    bool needs_frame = true;
    bool high_is_good = false;  ///< the colour scale runs red (low) to blue (high): clocks, Capture Index
};
/// Every colouring metric, the default first.
const std::vector<MetricInfo>& metrics();
/// Throws RenderError naming the known ones.
const MetricInfo& metricInfo(const std::string& id);

enum class MouseEvent { LeftPress, LeftRelease, RightPress, RightRelease, MiddlePress, MiddleRelease, Move, WheelForward, WheelBackward };

/// The VTK version this library renders with ("9.1.0"), for About boxes.
std::string vtkVersionText();

class Scene {
public:
    enum class Target { Offscreen, Window };
    /// Builds the first hall: floor with tile grid, walls, racks with their nodes at their U positions,
    /// cooling units, CDUs, fabric switches and links (`links` from sim::net::fabricLinks). Throws RenderError
    /// when the scenario has no hall.
    Scene(const model::Scenario& s, const model::Catalog& c, std::vector<model::FabricLink> links = {}, Target target = Target::Offscreen);
    ~Scene();
    Scene(const Scene&) = delete;
    Scene& operator=(const Scene&) = delete;

    /// Throws RenderError for an unknown metric.
    void setMetric(const std::string& id);
    const std::string& metric() const;
    /// Recolours racks, nodes, units and links from the frame and rebuilds only the air overlays (from
    /// `f.air`, when it has one). Entities the frame lacks show as "no data".
    void setFrame(const model::Frame& f);
    void clearFrame();
    bool hasFrame() const;
    bool hasAirField() const;
    void setOverlays(const Overlays& o);
    const Overlays& overlays() const;
    /// "iso", "top" or "aisle" (eye height along the first aisle). Throws RenderError otherwise.
    void setCamera(const std::string& preset);
    /// Outlines an entity (rack, node, cooling unit, CDU); "" clears.
    void setSelected(const std::string& id);
    const std::string& selected() const;
    /// Outlines entities with a finding: `severity` 2 = error (red), 1 = warning (amber). Replaces the last set.
    void setMarkers(const std::vector<std::pair<std::string, int>>& ids_severity);
    /// Outlines entities in magenta (what an impact query found); GPUs are shown by their node.
    void setHighlighted(const std::vector<std::string>& ids);
    const std::vector<std::string>& highlighted() const;
    /// Draws these fabric links thick in magenta over the others (a job's busiest); returns how many drawn lines
    /// carry them (a bundle counts once). An empty list clears them.
    std::size_t setHighlightedLinks(const std::vector<std::string>& link_ids);
    std::size_t markerCount() const;
    /// The camera as 10 numbers (position, focal point, view up, view angle), to keep it across a rebuild.
    std::vector<double> cameraState() const;
    void setCameraState(const std::vector<double>& state);
    /// Frames an entity so that it can be seen (from the current side, looking down enough that the row in
    /// front does not hide it); a GPU is framed by its node. False when unknown.
    bool focus(const std::string& id);
    /// Everything in view, keeping the direction.
    void fit();
    /// Where the ray through a pixel (origin top-left) first meets a node, rack, unit or the floor.
    bool hitPoint(int x, int y, double point[3]) const;

    /// The entity under a pixel (origin top-left): node, rack, cooling unit or CDU id; "" for none.
    std::string pick(int x, int y) const;
    /// The fabric links drawn nearest a pixel, within `tolerance_px` on screen: one id, or every link of a
    /// bundle (links between the same racks drawn as one line); empty when none is that close or links are off.
    std::vector<std::string> pickLink(int x, int y, double tolerance_px = 6) const;
    /// Where a pixel's ray meets the floor (z = 0); false when it does not (looking up or sideways).
    bool floorPoint(int x, int y, double& x_m, double& y_m) const;
    /// The pixel where an entity's centre (or the top of a rack) is drawn; false when unknown.
    bool project(const std::string& id, int& x, int& y, bool top = false) const;

    /// Device pixels per logical pixel of the window (2 on a high-DPI screen): text is scaled to match.
    void setPixelRatio(double ratio);
    void setSize(int width, int height);
    void render();
    /// Frames in quick succession: draw without multisampling (about twice as fast in software OpenGL) until
    /// set back; screenshots and the picture left on screen use the full quality.
    void setFastRendering(bool fast);
    /// What the view says at its top left about the colouring ("" when nothing): no values yet for a run
    /// metric, none recorded, or every node the same.
    const std::string& hint() const;
    /// Whether the hint is drawn (the app: yes; clustertwin-cli render: no). The text is kept either way.
    void setShowHint(bool on);
    bool showsHint() const;
    /// A caption across the top centre in large type (tours, videos); "" hides it.
    void setCaption(const std::string& text);
    /// Renders and returns the picture as rows of RGB bytes, top row first (a video's frame). Throws RenderError.
    std::vector<unsigned char> grabRgb(int& width, int& height);
    /// Renders and writes a PNG (atomically: temporary file, then rename). Throws RenderError.
    void savePng(const std::string& path);
    /// Writes what the view draws (floor, walls, racks and nodes in the current metric's colours, units, links,
    /// air overlays) as one self-contained glTF 2.0 file (buffers embedded), atomically; text and colour bars
    /// are left out. Needs no display. Throws RenderError.
    void exportGltf(const std::string& path);

    /// Window target: the native window to draw into (X11 window id) and input forwarding.
    void setWindowId(std::uintptr_t id);
    void mouse(MouseEvent e, int x, int y, bool ctrl = false, bool shift = false);

    std::size_t nodeCount() const;
    std::size_t rackCount() const;
    std::size_t linkLineCount() const;  ///< lines drawn (after bundling)
    /// Racks drawn as one box in the last frame (level of detail: fast frames of halls of 1,000 nodes or more).
    std::size_t farRackCount() const;
    std::size_t busyLinkLineCount() const;  ///< of those, drawn thick: at 50 % of capacity or more
    /// The hottest lines' labels in the last frame (with the links overlay): up to six, busiest first, each its
    /// busiest cable and load ("leaf0 – spine0, cable 3: 27 %"); lines under 1 % and failed ones have none.
    const std::vector<std::string>& linkLabels() const;
    /// Whether the thin lines of links under half their capacity are drawn: not in fast frames of halls of 1,000
    /// nodes or more (the busy ones stay; the frame that stays draws all).
    bool idleLinksShown() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

struct RenderOptions {
    int width = 1280;
    int height = 800;
    std::string view = "iso";  ///< "iso", "top" or "aisle"
    std::string metric;        ///< "" = the first metric that fits (nameplate without a frame)
    Overlays overlays;
};

/// Renders the first hall offscreen to a PNG, coloured from `frame` when given. Throws RenderError (bad size,
/// view or metric, no hall, cannot write).
void renderScenarioPng(const model::Scenario& s, const model::Catalog& c, const std::string& png_path, const RenderOptions& opt = {},
                       const model::Frame* frame = nullptr, std::vector<model::FabricLink> links = {});

}  // namespace ct::render
