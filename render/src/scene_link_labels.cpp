// Hot links named in the 3D view (issue 40, "the network you can point at"): the busiest lines of the fabric
// carry their busiest cable's name and load, placed by VTK's label placer as the hall's own labels are.
#include "scene_impl.hpp"

#include <clustertwin/model/fabric.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::render {

void Scene::Impl::labelHotLinks(const std::vector<double>& percent, const std::vector<std::string>& busiest) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < lines.size() && i < percent.size(); ++i)
        if (percent[i] >= 1 && !busiest[i].empty()) order.push_back(i);  // NaN (failed, no run) is never >= 1
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return percent[a] > percent[b]; });
    if (order.size() > kHotLinkLabels) order.resize(kHotLinkLabels);
    link_labels.clear();
    vtkNew<vtkPoints> pts;
    vtkNew<vtkStringArray> names;
    names->SetName("labels");
    vtkNew<vtkIntArray> priority;
    priority->SetName("priority");
    for (std::size_t i : order) {
        double a[3], b[3];
        link_points->GetPoint(lines[i].a_end, a);
        link_points->GetPoint(lines[i].b_end, b);
        char load[32];
        std::snprintf(load, sizeof load, ": %.0f %%", percent[i]);
        // VTK's font has no "↔": an en dash between the ends ("leaf0 – spine0, cable 3").
        std::string text = model::cableLabel(busiest[i]);
        if (const auto at = text.find("↔"); at != std::string::npos) text.replace(at, std::string("↔").size(), "–");
        text += load;
        if (lines[i].ids.size() > 1) text += " (busiest of " + std::to_string(lines[i].ids.size()) + ")";
        link_labels.push_back(text);
        pts->InsertNextPoint((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2);
        names->InsertNextValue(text);
        priority->InsertNextValue(static_cast<int>(std::lround(percent[i])));  // the busier wins a place
    }
    if (link_labels.empty()) {
        link_label_actor->SetVisibility(0);
        return;
    }
    // The link colour bar's warm end, bold: a link's note, not a rack's name; drawn over what is in front of it.
    link_label_actor->SetMapper(placedLabels(pts, names, priority, {1.0, 0.85, 0.45}, true, false));
    if (!ren->HasViewProp(link_label_actor)) ren->AddActor2D(link_label_actor);
    showLinkLabels();
}

}  // namespace ct::render
