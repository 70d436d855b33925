#include "view3d.hpp"

#include "scenario_document.hpp"

#include <clustertwin/model/validate.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <QGuiApplication>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QStringList>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QWindow>

#include <cmath>

namespace ct::app {

namespace {
render::MouseEvent pressOf(Qt::MouseButton b) {
    return b == Qt::LeftButton    ? render::MouseEvent::LeftPress
           : b == Qt::RightButton ? render::MouseEvent::RightPress
                                  : render::MouseEvent::MiddlePress;
}
render::MouseEvent releaseOf(Qt::MouseButton b) {
    return b == Qt::LeftButton    ? render::MouseEvent::LeftRelease
           : b == Qt::RightButton ? render::MouseEvent::RightRelease
                                  : render::MouseEvent::MiddleRelease;
}
}  // namespace

bool View3D::available() { return QGuiApplication::platformName() == "xcb"; }

View3D::View3D(const ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    setObjectName("view3d");
    setMinimumSize(200, 150);
    settle_ = new QTimer(this);
    settle_->setSingleShot(true);
    settle_->setInterval(300);
    connect(settle_, &QTimer::timeout, this, [this] {
        if (scene_ && fast_) scene_->setFastRendering(false);
        fast_ = false;
        update();
    });
    if (available()) {
        setAttribute(Qt::WA_NativeWindow);
        setAttribute(Qt::WA_PaintOnScreen);
        setAttribute(Qt::WA_NoSystemBackground);
        setMouseTracking(true);
        setFocusPolicy(Qt::StrongFocus);
    } else {
        auto* l = new QVBoxLayout(this);
        auto* note = new QLabel(tr("The 3D view needs an X display (on Wayland, run with QT_QPA_PLATFORM=xcb)."), this);
        note->setAlignment(Qt::AlignCenter);
        l->addWidget(note);
    }
    connect(&doc_, &ScenarioDocument::changed, this, &View3D::rebuild);
    connect(&doc_, &ScenarioDocument::edited, this, [this] {
        keep_camera_ = true;
        rebuild();
    });
}

View3D::~View3D() = default;

void View3D::setVersion(std::shared_ptr<const model::ValidationReport> version) {
    if (version == version_) return;
    version_ = std::move(version);
    keep_camera_ = true;  // the same camera on the other layout: the Compare tab's panes stay linked
    rebuild();
}

QPaintEngine* View3D::paintEngine() const { return available() ? nullptr : QWidget::paintEngine(); }

void View3D::rebuild() {
    if (!available()) return;
    fast_ = false;  // a new scene draws at full quality
    const model::Scenario& scenario = version_ ? version_->scenario : doc_.scenario();
    const model::Catalog& catalog = version_ ? version_->catalog : doc_.catalog();
    std::vector<model::FabricLink> links;
    try {
        links = sim::net::fabricLinks(scenario, catalog);
    } catch (const std::exception&) {
        // A fabric the network model cannot build is drawn without links; the simulation reports why.
    }
    const std::string metric = scene_ ? scene_->metric() : std::string("nameplate_kw");
    const render::Overlays ov = scene_ ? scene_->overlays() : render::Overlays{};
    const std::string selected = scene_ ? scene_->selected() : std::string();
    // After an edit the camera stays where the user put it; a newly opened scenario starts from the iso view.
    const std::vector<double> camera = scene_ && keep_camera_ ? scene_->cameraState() : std::vector<double>{};
    keep_camera_ = false;
    const bool had_window = scene_ && window_set_;
    scene_.reset();
    window_set_ = false;
    // VTK unmaps a window it does not own when its render window goes (vtkXOpenGLRenderWindow::DestroyWindow):
    // without mapping it again the view stays black until Qt happens to show it anew (another tab and back).
    if (had_window && windowHandle() && isVisible()) {
        windowHandle()->setVisible(false);
        windowHandle()->setVisible(true);
    }
    if (scenario.halls.empty()) return;
    scene_ = std::make_unique<render::Scene>(scenario, catalog, std::move(links), render::Scene::Target::Window);
    scene_->setOverlays(ov);
    scene_->setMetric(metric);
    setSceneSize();
    if (!camera.empty()) scene_->setCameraState(camera);
    if (!selected.empty()) scene_->setSelected(selected);
    std::vector<std::pair<std::string, int>> marks;  // the document's findings, not another version's
    if (!version_)
        for (const auto& f : doc_.findings()) marks.push_back({f.entity, f.severity == model::Severity::Error ? 2 : 1});
    scene_->setMarkers(marks);
    if (isVisible()) {
        scene_->setWindowId(static_cast<std::uintptr_t>(winId()));
        window_set_ = true;
    }
    update();
}

void View3D::busy() {
    if (!scene_) return;
    if (!fast_) scene_->setFastRendering(true);
    fast_ = true;
    settle_->start();  // the full-quality picture once frames stop coming
}

void View3D::setFrame(const model::Frame& f) {
    if (!scene_) return;
    busy();
    scene_->setFrame(f);
    update();
}

void View3D::clearFrame() {
    if (!scene_) return;
    scene_->clearFrame();
    update();
}

void View3D::setSelected(const EntityRef& ref) {
    selected_ = ref;
    if (!scene_) return;
    scene_->setSelected(ref.id.toStdString());
    update();
}

void View3D::focus(const EntityRef& ref) {
    setSelected(ref);
    if (scene_) scene_->focus(ref.id.toStdString());
    update();
}

void View3D::fit() {
    if (scene_) scene_->fit();
    update();
    emit cameraMoved();
}

bool View3D::frameSelection() {
    const bool ok = scene_ && selected_.isValid() && scene_->focus(selected_.id.toStdString());
    update();
    return ok;
}

void View3D::renderNow() {
    if (scene_ && window_set_) scene_->render();
}

bool View3D::saveScreenshot(const QString& path, QString* error) {
    if (!scene_ || !window_set_) {
        if (error) *error = tr("There is no 3D scene to save.");
        return false;
    }
    if (fast_) {  // a picture that stays: drawn at full quality (labels, multisampling), as the settled view is
        settle_->stop();
        fast_ = false;
        scene_->setFastRendering(false);
    }
    try {
        scene_->savePng(path.toStdString());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

void View3D::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (scene_ && !window_set_) {
        scene_->setWindowId(static_cast<std::uintptr_t>(winId()));
        setSceneSize();
        window_set_ = true;
    }
}

QPoint View3D::toPixels(const QPointF& p) const {
    // VTK counts device pixels; Qt's events are in device-independent ones (QT_SCALE_FACTOR, high-DPI screens).
    const double r = devicePixelRatioF();
    return QPoint(static_cast<int>(std::lround(p.x() * r)), static_cast<int>(std::lround(p.y() * r)));
}

void View3D::setSceneSize() {
    if (!scene_) return;
    const double r = devicePixelRatioF();
    scene_->setSize(static_cast<int>(std::lround(width() * r)), static_cast<int>(std::lround(height() * r)));
    scene_->setPixelRatio(r * text_scale_);  // text as large as at ratio 1 (times the presentation's scale)
}

void View3D::setTextScale(double k) {
    text_scale_ = k;
    setSceneSize();
    update();
}

void View3D::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    setSceneSize();
}

void View3D::paintEvent(QPaintEvent* e) {
    if (!available()) {
        QWidget::paintEvent(e);
        return;
    }
    renderNow();
}

void View3D::mousePressEvent(QMouseEvent* e) {
    press_pos_ = toPixels(e->position());
    dragged_ = false;
    drag_id_.clear();
    if (!scene_) return;
    // Shift+drag on a rack or unit moves it over the floor instead of turning the camera.
    if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier)) {
        const EntityRef ref = doc_.refOf(QString::fromStdString(scene_->pick(press_pos_.x(), press_pos_.y())));
        if ((ref.kind == "rack" || ref.kind == "cooling_unit" || ref.kind == "cdu") &&
            scene_->floorPoint(press_pos_.x(), press_pos_.y(), drag_x0_, drag_y0_)) {
            drag_id_ = ref.id;
            emit entitySelected(ref);
            return;
        }
    }
    scene_->mouse(pressOf(e->button()), press_pos_.x(), press_pos_.y(), e->modifiers() & Qt::ControlModifier,
                  e->modifiers() & Qt::ShiftModifier);
    update();
}

void View3D::mouseMoveEvent(QMouseEvent* e) {
    const QPoint p = toPixels(e->position());
    if ((p - press_pos_).manhattanLength() > 3 * devicePixelRatioF()) dragged_ = true;
    if (!scene_ || !drag_id_.isEmpty()) return;
    scene_->mouse(render::MouseEvent::Move, p.x(), p.y());
    if (e->buttons() != Qt::NoButton) {
        busy();
        update();
        emit cameraMoved();
    }
}

void View3D::mouseReleaseEvent(QMouseEvent* e) {
    if (!scene_) return;
    const QPoint p = toPixels(e->position());
    if (!drag_id_.isEmpty()) {
        double x = 0, y = 0;
        const QString id = drag_id_;
        drag_id_.clear();
        if (dragged_ && scene_->floorPoint(p.x(), p.y(), x, y)) emit moveRequested({id}, x - drag_x0_, y - drag_y0_);
        return;
    }
    scene_->mouse(releaseOf(e->button()), p.x(), p.y());
    // A click (not a drag) picks what is under the cursor.
    if (e->button() == Qt::LeftButton && !dragged_) {
        const EntityRef ref = doc_.refOf(QString::fromStdString(scene_->pick(p.x(), p.y())));
        if (ref.isValid()) {
            emit entitySelected(ref);
        } else if (const auto links = scene_->pickLink(p.x(), p.y(), 6 * devicePixelRatioF()); !links.empty()) {
            emit entitySelected({"link", QString::fromStdString(links.front())});  // a bundle: its first link
        }
    }
    update();
}

void View3D::wheelEvent(QWheelEvent* e) {
    if (!scene_) return;
    const QPoint p = toPixels(e->position());
    busy();
    scene_->mouse(e->angleDelta().y() > 0 ? render::MouseEvent::WheelForward : render::MouseEvent::WheelBackward, p.x(), p.y());
    update();
    emit cameraMoved();
}

}  // namespace ct::app
