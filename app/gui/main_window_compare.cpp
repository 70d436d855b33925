// MainWindow: what is shown of the run and its what-if (the frame, difference colouring, the Compare tab's
// baseline), how a what-if is asked for, and any other run of the scenario compared with the shown one. Split
// from main_window.cpp by concern.
#include "main_window.hpp"

#include "charts_panel.hpp"
#include "compare_view.hpp"
#include "floor_plan_view.hpp"
#include "run_controller.hpp"
#include "run_explainer.hpp"
#include "run_picker.hpp"
#include "scenario_document.hpp"
#include "simulation_control.hpp"
#include "simulation_options.hpp"
#include "view3d.hpp"
#include "whatif_dialog.hpp"

#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/store.hpp>

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>

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

void MainWindow::compareWithRun(const QString& db, std::int64_t run) {
    // Loaded in the background (a long run's replay takes a while), adopted on the GUI thread.
    auto loaded = std::make_shared<std::shared_ptr<runs::RunReplay>>();
    auto error = std::make_shared<QString>();
    auto id = std::make_shared<std::int64_t>(run);
    QThread* t = QThread::create([db, loaded, error, id] {
        try {
            const auto store = runs::TelemetryStore::open(db.toStdString(), runs::TelemetryStore::Mode::Existing);
            if (*id == 0) {
                const auto all = store.runs();
                if (all.empty()) throw std::runtime_error("it holds no run");
                *id = all.back().id;
            }
            *loaded = std::make_shared<runs::RunReplay>(runs::RunReplay::load(store, *id));
        } catch (const std::exception& e) {
            *error = QString::fromStdString(e.what());
        }
    });
    connect(t, &QThread::finished, t, &QObject::deleteLater);  // also when the window has gone meanwhile
    connect(t, &QThread::finished, this, [this, loaded, error, id, db] {
        if (!*loaded) {
            const QString why = tr("%1: %2").arg(db, *error);
            statusBar()->showMessage(tr("Not compared: %1").arg(why), 15000);
            emit comparisonFailed(why);
            return;
        }
        adoptBaseline(*loaded, db, *id);
    });
    statusBar()->showMessage(tr("Loading %1 to compare with…").arg(db));
    t->start();
}

void MainWindow::adoptBaseline(std::shared_ptr<runs::RunReplay> run, const QString& db, std::int64_t id) {
    const std::string source = db.toStdString() + ", run " + std::to_string(id);
    QString why;
    if (!run_->hasRun() || !runMatchesScenario()) why = tr("no run of this scenario is shown to compare it with (open one first)");
    else if (run->info().scenario_id != doc_->scenario().id)
        why = tr("%1 is a run of %2, not of %3: runs are compared entity by entity, on one scenario")
                  .arg(QString::fromStdString(source), QString::fromStdString(run->info().scenario_id),
                       QString::fromStdString(doc_->scenario().id));
    else if (id == run_->replay()->info().id && QFileInfo(db).canonicalFilePath() == QFileInfo(run_->databasePath()).canonicalFilePath())
        why = tr("that is the shown run itself");
    if (!why.isEmpty()) {
        statusBar()->showMessage(tr("Not compared: %1").arg(why), 15000);
        emit comparisonFailed(why);
        return;
    }
    sims_->setBaseline(std::move(run), source);
    compare_action_->setEnabled(true);
    setCompareWithBaseline(true);
    compare_view_->setBaseline(sims_->baseline());
    tabs_->setTabEnabled(tabs_->indexOf(compare_view_), true);
    statusBar()->showMessage(tr("Compared with %1 (%2): the Compare tab shows both")
                                 .arg(QString::fromStdString(source), QString::fromStdString(sims_->baseline()->info().name)),
                             10000);
    emit comparisonReady();
}

void MainWindow::followNamedBaseline() {
    if (!run_->hasRun() || !runMatchesScenario() || sims_->running()) return;
    const std::string& named = run_->replay()->info().meta.whatif_baseline;
    if (named.empty() || named == sims_->baselineSource()) return;
    // "<database>, run N", as SimulationControl and clustertwin-cli sweep write it.
    const auto comma = named.rfind(", run ");
    if (comma == std::string::npos) return;
    const QString db = QString::fromStdString(named.substr(0, comma));
    std::int64_t id = 0;
    try {
        id = std::stoll(named.substr(comma + 6));
    } catch (const std::exception&) {
        return;
    }
    if (!QFileInfo(db).isFile()) {
        statusBar()->showMessage(tr("This run names its baseline, %1, which is not there any more").arg(QString::fromStdString(named)),
                                 15000);
        return;
    }
    compareWithRun(db, id);
}

void MainWindow::compareWithRunDialog() {
    const QString start = run_->hasRun() && !run_->databasePath().isEmpty() ? QFileInfo(run_->databasePath()).absolutePath() : runsFolder();
    const QString db =
        QFileDialog::getOpenFileName(this, tr("Compare with a run of"), start, tr("Run databases (*.sqlite *.db);;All files (*)"));
    if (db.isEmpty()) return;
    RunPicker::choose(this, db, [this, db](std::int64_t run) { compareWithRun(db, run); });
}

}  // namespace ct::app
