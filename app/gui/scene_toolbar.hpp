#pragma once
// The 3D view's toolbar: colouring metric, camera presets, and a toggle (with a spin box for its number) for
// every overlay of render::overlayTable().
#include <QToolBar>

#include <functional>

class QComboBox;

namespace ct::render {
struct Overlays;
}

namespace ct::app {
class View3D;

class SceneToolbar : public QToolBar {
    Q_OBJECT
public:
    SceneToolbar(View3D& view, QWidget* parent = nullptr);
    QComboBox* metricBox() const { return metric_; }
    /// Applies the chosen metric to the view's scene (after it was rebuilt).
    void applyMetric();

private:
    /// Changes the scene's overlays and redraws.
    void changeOverlays(const std::function<void(render::Overlays&)>& change);
    View3D& view_;
    QComboBox* metric_;
};

}  // namespace ct::app
