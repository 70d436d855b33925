#pragma once
// The 3D view's toolbar: colouring metric, camera presets, overlays (slice and its height, aisle slice,
// 27 °C surface, streamlines, links, labels).
#include <QToolBar>

class QComboBox;

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
    View3D& view_;
    QComboBox* metric_;
};

}  // namespace ct::app
