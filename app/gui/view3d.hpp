#pragma once
// The 3D view: a native child window that VTK draws into (docs/qt-vtk-embedding.md: Debian's VTK Qt
// widget is built for Qt 5). Clicks pick entities; drags turn the camera. Needs X (xcb); elsewhere it shows
// a note instead of a scene.
#include "entity_ref.hpp"

#include <clustertwin/model/frame.hpp>

#include <QWidget>

class QTimer;

#include <memory>

namespace ct::render {
class Scene;
}
namespace ct::model {
struct ValidationReport;
}

namespace ct::app {
class ScenarioDocument;

class View3D : public QWidget {
    Q_OBJECT
public:
    explicit View3D(const ScenarioDocument& doc, QWidget* parent = nullptr);
    ~View3D() override;

    /// Whether VTK can draw here (an X display).
    static bool available();
    /// The scene (nullptr before a scenario or without a display).
    render::Scene* scene() const { return scene_.get(); }
    void setFrame(const model::Frame& f);
    void clearFrame();
    void setSelected(const EntityRef& ref);
    /// Turns the camera to the entity and outlines it.
    void focus(const EntityRef& ref);
    /// The whole hall in view (View > Zoom to fit, Home).
    void fit();
    /// Frames the selection (View > Frame selection, F); false when nothing selected is drawn.
    bool frameSelection();
    /// Writes the view as a PNG (atomically). Returns false with a message on failure.
    bool saveScreenshot(const QString& path, QString* error = nullptr);
    /// Redraws now (tests, screenshots).
    void renderNow();
    /// Text, lines and colour bars this much larger than usual (presentation mode: 1.8).
    void setTextScale(double k);
    /// Draws `version` (a run's own scenario with its effective catalog) instead of the open document: the
    /// Compare tab shows each run on the layout it was computed for. nullptr: the document again.
    void setVersion(std::shared_ptr<const model::ValidationReport> version);
    bool showsVersion() const { return version_ != nullptr; }

    QPaintEngine* paintEngine() const override;

signals:
    void entitySelected(const ct::app::EntityRef& ref);
    /// Shift+drag of a rack or unit along the floor by (dx, dy) metres (the edit snaps it to whole tiles).
    void moveRequested(const QStringList& ids, double dx_m, double dy_m);
    /// The user turned, zoomed or fitted the camera (the Compare tab keeps its two views together).
    void cameraMoved();

protected:
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;

private:
    /// The scene's size in device pixels, and the ratio its text and lines are scaled by.
    void setSceneSize();
    QPoint toPixels(const QPointF& p) const;
    void rebuild();
    /// Frames in quick succession (playback, live frames, dragging, the wheel): draw fast until 300 ms pass
    /// without one, then once at full quality (render::Scene::setFastRendering).
    void busy();
    const ScenarioDocument& doc_;
    std::shared_ptr<const model::ValidationReport> version_;
    QTimer* settle_ = nullptr;
    bool fast_ = false;
    EntityRef selected_;
    std::unique_ptr<render::Scene> scene_;
    QPoint press_pos_;
    bool dragged_ = false;
    bool window_set_ = false;
    bool keep_camera_ = false;
    double text_scale_ = 1;
    QString drag_id_;  ///< what a Shift+drag moves ("" = the camera turns)
    double drag_x0_ = 0, drag_y0_ = 0;
};

}  // namespace ct::app
