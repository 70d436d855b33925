// MainWindow: what is shown of the run and its what-if (the frame, difference colouring, the Compare tab's
// baseline) and how a what-if is asked for. Split from main_window.cpp by concern.
#include "main_window.hpp"

#include "charts_panel.hpp"
#include "floor_plan_view.hpp"
#include "run_controller.hpp"
#include "run_explainer.hpp"
#include "scenario_document.hpp"
#include "simulation_control.hpp"
#include "simulation_options.hpp"
#include "view3d.hpp"
#include "whatif_dialog.hpp"

#include <clustertwin/runs/replay.hpp>

#include <QAction>
#include <QComboBox>
#include <QMessageBox>

#include <cmath>
#include <map>

namespace ct::app {

void MainWindow::showFrame() {
    if (!runMatchesScenario()) return;
    const auto& baseline = sims_->baseline();
    const std::string metric = metric_box_ ? metric_box_->currentData().toString().toStdString() : std::string("inlet_c");
    if (metric == "inlet_residual_c") {  // simulated − measured (main_window_twin.cpp)
        const model::Frame f = residualFrame();
        view3d_->setFrame(f);
        plan_->setFrame(f, metric);
        return;
    }
    if (!compare_ || !baseline) {
        view3d_->setFrame(run_->frame());
        plan_->setFrame(run_->frame(), metric);
        return;
    }
    // Difference colouring: each node's inlet minus the baseline's at the same time from the start.
    model::Frame f = run_->frame();
    const model::Frame b = baseline->frameAt(baseline->startS() + run_->time() + 1e-6);
    std::map<std::string, double> base;
    for (const auto& n : b.nodes) base[n.id] = n.inlet_c;
    for (auto& n : f.nodes) {
        auto it = base.find(n.id);
        n.inlet_c = it == base.end() ? std::nan("") : n.inlet_c - it->second;
    }
    for (auto& r : f.racks) r.inlet_max_c = std::nan("");
    view3d_->setFrame(f);
    plan_->setFrame(f, metric);
}

void MainWindow::setCompareWithBaseline(bool on) {
    compare_ = on && sims_->baseline() != nullptr;
    if (compare_action_->isChecked() != compare_) compare_action_->setChecked(compare_);
    metric_box_->setCurrentIndex(metric_box_->findData(compare_ ? "inlet_delta_c" : "inlet_c"));
    charts_->setBaseline(compare_ ? sims_->baseline() : nullptr);  // the baseline's curves beside the what-if's
    showFrame();
}

bool MainWindow::runWhatIf(const EntityRef& target, double duration_s, const QString& dir) {
    const auto kinds = whatIfKinds(target.kind);
    if (kinds.first.empty()) return false;
    model::Event e;
    e.time_s = 60;
    e.kind = kinds.first;
    e.target = target.id.toStdString();
    return runWhatIfEvents({e}, duration_s, dir);
}

bool MainWindow::runWhatIfEvents(const std::vector<model::Event>& events, double duration_s, const QString& dir) {
    if (events.empty()) return false;
    compare_ = false;
    whatif_events_ = events;
    return sims_->startWhatIf(events, duration_s, dir, sim_options_->air());
}

void MainWindow::whatIfDialog() {
    QList<EntityRef> preset = plan_->selection();
    if (preset.isEmpty() && selection_.isValid()) preset = {selection_};
    WhatIfDialog d(doc_->scenario(), preset, this);
    if (d.exec() != QDialog::Accepted) return;
    try {
        const auto events = d.events();
        if (events.empty() || !runWhatIfEvents(events, d.durationS()))
            QMessageBox::information(this, tr("What-if"),
                                     tr("Add a failure: a cooling unit, CDU, water loop, power feed, transformer, UPS or PDU (or select a "
                                        "node or GPU first); one what-if runs at a time."));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("What-if"), QString::fromStdString(e.what()));
    }
}

}  // namespace ct::app
