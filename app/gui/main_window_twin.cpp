// MainWindow: the twin against its hall (issue 44) — the Twin dock, the measurements beside the run in the
// charts, the residual colouring of the views, and the calibration dialog. Split from main_window.cpp by concern.
#include "main_window.hpp"

#include "calibrate_dialog.hpp"
#include "charts_panel.hpp"
#include "floor_plan_view.hpp"
#include "measured_overlay.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "twin_panel.hpp"
#include "view3d.hpp"

#include <QComboBox>
#include <QDockWidget>
#include <QScrollArea>
#include <QStatusBar>

#include <cmath>

namespace ct::app {

QDockWidget* MainWindow::buildTwin(QDockWidget* beside) {
    twin_ = new TwinPanel(*run_, *doc_);
    auto* d = new QDockWidget(tr("Twin"), this);
    d->setObjectName("twinDock");
    auto* scroll = new QScrollArea(d);  // its form and table never make the bottom docks taller than they were
    scroll->setWidget(twin_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    d->setWidget(scroll);
    addDockWidget(Qt::BottomDockWidgetArea, d);
    tabifyDockWidget(beside, d);
    connect(twin_, &TwinPanel::overlayChanged, this, [this](std::shared_ptr<const MeasuredOverlay> o) {
        measured_ = std::move(o);
        charts_->setMeasured(measured_);
        if (run_->hasRun() && runMatchesScenario()) showFrame();
    });
    connect(twin_, &TwinPanel::residualColouring, this,
            [this](bool on) { metric_box_->setCurrentIndex(metric_box_->findData(on ? "inlet_residual_c" : "inlet_c")); });
    connect(twin_, &TwinPanel::seriesActivated, this, [this](const QString& entity, const QString& metric) {
        const EntityRef ref = doc_->refOf(entity);
        if (!ref.isValid()) return;
        select(ref);
        const int i = charts_->metricBox()->findData(metric);
        if (i >= 0) charts_->metricBox()->setCurrentIndex(i);
    });
    connect(twin_, &TwinPanel::calibrateRequested, this, [this](const QString& db, const QString& map) { openCalibration(db, map); });
    connect(twin_, &TwinPanel::failed, this, [this](const QString& m) { statusBar()->showMessage(tr("Not scored: %1").arg(m)); });
    return d;
}

model::Frame MainWindow::residualFrame() const {
    model::Frame f = run_->frame();
    const double t = run_->absoluteTime();  // the measurements are on the run's own clock
    for (auto& n : f.nodes) n.inlet_c = measured_ ? n.inlet_c - measured_->at(n.id, "inlet_c", t) : std::nan("");
    for (auto& r : f.racks) r.inlet_max_c = std::nan("");
    return f;
}

QDialog* MainWindow::openCalibration(const QString& measured_db, const QString& map) {
    auto* d = new CalibrateDialog(doc_->scenario(), doc_->catalog(), measured_db, map, doc_->path(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &CalibrateDialog::openCalibrated, this, [this](const QString& path) { openScenario(path); });
    connect(d, &CalibrateDialog::calibrationEnded, this, [this](bool ok, const QString& message) {
        statusBar()->showMessage(ok ? tr("Calibrated: %1").arg(message.section('\n', 0, 0)) : tr("Not calibrated: %1").arg(message));
    });
    connect(d, &QObject::destroyed, this, [this, d] {
        if (calibration_ == d) calibration_ = nullptr;
    });
    calibration_ = d;
    d->show();
    return d;
}

}  // namespace ct::app
