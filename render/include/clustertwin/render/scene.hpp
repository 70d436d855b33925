#pragma once
// Offscreen rendering of a scenario's hall (no Qt). VTK types stay in the .cpp (STYLE.md habit 2).
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>

namespace ct::render {

class RenderError : public Error {
public:
    using Error::Error;
};

struct RenderOptions {
    int width = 1280;
    int height = 800;
    std::string view = "iso";  ///< "iso" or "top"
};

/// Renders the first hall (floor, racks coloured by nameplate power, cooling units, CDUs) offscreen and
/// writes a PNG. Throws RenderError (bad size or view, no hall, cannot write).
void renderScenarioPng(const model::Scenario& s, const model::Catalog& c, const std::string& png_path,
                       const RenderOptions& opt = {});

} // namespace ct::render
