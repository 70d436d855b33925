#include "run_dialog.hpp"
#include "file_row.hpp"
#include "qstr.hpp"

#include <clustertwin/sim/air/air_solver.hpp>

#include "run_explainer.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ct::app {

model::Scenario RunRequest::applyTo(const model::Scenario& s) const {
    model::Scenario out = s;
    out.jobs.insert(out.jobs.end(), extra_jobs.begin(), extra_jobs.end());
    std::vector<model::Event> kept;
    for (std::size_t i = 0; i < s.events.size(); ++i)
        if (std::find(skipped_events.begin(), skipped_events.end(), static_cast<int>(i)) == skipped_events.end())
            kept.push_back(s.events[i]);
    out.events = std::move(kept);
    return out;
}

RunDialog::RunDialog(const model::Scenario& s, const model::Catalog& c, const std::string& air, QWidget* parent)
    : QDialog(parent), scenario_(s), catalog_(c) {
    setObjectName("runDialog");
    setWindowTitle(tr("Run simulation"));
    auto* l = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    duration_ = new QLineEdit("15min", this);
    duration_->setObjectName("runDuration");
    duration_->setToolTip(tr("Simulated time: 90s, 15min, 2h; with steady state, the most it runs"));
    step_ = new QLineEdit("1s", this);
    step_->setObjectName("runStep");
    step_->setToolTip(tr("Engine step: power, equipment and jobs are updated this often (the air solver sub-steps within it)"));
    air_ = new QComboBox(this);
    air_->setObjectName("runAir");
    for (const auto& solver : sim::airSolvers()) {  // every solver of the table, the default first
        air_->addItem(QString::fromStdString(solver.label), QString::fromStdString(solver.name));
        air_->setItemData(air_->count() - 1, QString::fromStdString(solver.help), Qt::ToolTipRole);
    }
    air_->setCurrentIndex(std::max(0, air_->findData(QString::fromStdString(air))));
    steady_ = new QCheckBox(tr("Stop when every rack inlet holds still (steady state)"), this);
    steady_->setObjectName("runSteady");
    jobs_ = new QLineEdit(this);
    jobs_->setObjectName("runJobsFile");
    jobs_->setPlaceholderText(tr("optional: a jobs file, as clustertwin-cli simulate --jobs"));
    events_ = new QLineEdit(this);
    events_->setObjectName("runEventsFile");
    events_->setPlaceholderText(tr("optional: an events file, as clustertwin-cli simulate --events"));
    form->addRow(tr("Simulated time"), duration_);
    form->addRow(tr("Engine step"), step_);
    form->addRow(tr("Room air"), air_);
    form->addRow(QString(), steady_);
    form->addRow(tr("Scenario's jobs"), new QLabel(s.jobs.empty() ? tr("none") : tr("%1 (all run)").arg(s.jobs.size()), this));
    form->addRow(tr("More jobs"), fileRow(this, jobs_, tr("Jobs file"), tr("JSON (*.json)")));
    l->addLayout(form);
    l->addWidget(new QLabel(s.events.empty() ? tr("Scenario's scheduled events: none")
                                             : tr("Scenario's scheduled events (untick to leave one out of this run):"),
                            this));
    scenario_events_ = new QListWidget(this);
    scenario_events_->setObjectName("runScenarioEvents");
    for (const auto& e : s.events) {
        auto* it = new QListWidgetItem(tr("at %1: %2").arg(qs(model::formatDuration(e.time_s)), describeEvent(e.kind, e.target, e.value)),
                                       scenario_events_);
        it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
        it->setCheckState(Qt::Checked);
    }
    scenario_events_->setMaximumHeight(std::min(160, 24 + 20 * static_cast<int>(s.events.size())));
    scenario_events_->setVisible(!s.events.empty());
    l->addWidget(scenario_events_);
    auto* more = new QFormLayout;
    more->addRow(tr("More events"), fileRow(this, events_, tr("Events file"), tr("JSON (*.json)")));
    l->addLayout(more);
    l->addWidget(driveGroup());
    problems_ = new QLabel(this);
    problems_->setObjectName("runProblems");
    problems_->setWordWrap(true);
    problems_->setStyleSheet("color: #b00020");
    problems_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problems_->hide();
    l->addWidget(problems_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &RunDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    l->addWidget(buttons);
}

QGroupBox* RunDialog::driveGroup() {
    auto* g = new QGroupBox(tr("Driven by measurements (optional)"), this);
    g->setToolTip(
        tr("A hall's imported telemetry drives the run where it has a series: node and GPU power, fan speeds, the "
           "cooling units' supply temperature, airflow and fan signal, setpoints, CDU supply, job utilization "
           "(docs/calibration.md); the model's own values elsewhere and in gaps"));
    auto* form = new QFormLayout(g);
    drive_ = new QLineEdit(this);
    drive_->setObjectName("runDriveDb");
    drive_->setPlaceholderText(tr("a database of imported telemetry (File > Import telemetry, clustertwin-cli import)"));
    drive_map_ = new QLineEdit(this);
    drive_map_->setObjectName("runDriveMap");
    drive_map_->setPlaceholderText(tr("optional: names that do not match by themselves (as simulate --drive-map)"));
    drive_span_ = new QCheckBox(tr("Run as long as the measurements (instead of the simulated time above)"), this);
    drive_span_->setObjectName("runDriveSpan");
    drive_span_->setChecked(true);
    form->addRow(tr("Measurements"), fileRow(this, drive_, tr("Measured telemetry"), tr("Run databases (*.sqlite *.db);;All files (*)")));
    form->addRow(tr("Map"), fileRow(this, drive_map_, tr("Map file"), tr("JSON (*.json)")));
    form->addRow(QString(), drive_span_);
    return g;
}

void RunDialog::accept() {
    QStringList errors;
    RunRequest r;
    auto duration = [&](QLineEdit* e, const QString& what, double& out) {
        try {
            out = model::parseDurationS(e->text().trimmed().toStdString());
            if (!(out > 0)) errors << tr("%1 must be more than zero").arg(what);
        } catch (const std::exception& ex) {
            errors << tr("%1: %2").arg(what, qs(ex.what()));
        }
    };
    duration(duration_, tr("Simulated time"), r.duration_s);
    duration(step_, tr("Engine step"), r.step_s);
    if (errors.isEmpty() && r.step_s > r.duration_s) errors << tr("The engine step is longer than the simulated time");
    r.air = air_->currentData().toString().toStdString();
    r.steady = steady_->isChecked();
    for (int i = 0; i < scenario_events_->count(); ++i)
        if (scenario_events_->item(i)->checkState() != Qt::Checked) r.skipped_events.push_back(i);
    try {
        if (!jobs_->text().trimmed().isEmpty()) {
            const std::string file = jobs_->text().trimmed().toStdString();
            const model::JobsResult jr = model::loadJobsFile(file);
            for (const auto& d : jr.diagnostics)
                if (d.severity == model::Severity::Error) errors << qs(file + ": " + d.toString());
            r.extra_jobs = jr.jobs;
            // Checked as part of the scenario, as simulate --jobs does; the pointers point back into the jobs file.
            model::Scenario with = scenario_;
            const std::size_t first = with.jobs.size();
            with.jobs.insert(with.jobs.end(), jr.jobs.begin(), jr.jobs.end());
            for (auto d : model::validateScenario(with, catalog_)) {
                if (d.severity != model::Severity::Error || d.location.rfind("/jobs/", 0) != 0) continue;
                const std::size_t i = std::stoul(d.location.substr(6));
                if (i < first) continue;
                const std::size_t rest = d.location.find('/', 6);
                d.location =
                    jr.pointer_prefix + "/" + std::to_string(i - first) + (rest == std::string::npos ? "" : d.location.substr(rest));
                errors << qs(file + ": " + d.toString());
            }
        }
        if (!events_->text().trimmed().isEmpty()) {
            const std::string file = events_->text().trimmed().toStdString();
            const model::EventsResult er = model::loadEventsFile(file);
            for (const auto& d : er.diagnostics)
                if (d.severity == model::Severity::Error) errors << qs(file + ": " + d.toString());
            r.extra_events = er.events;
        }
    } catch (const std::exception& ex) {
        errors << qs(ex.what());
    }
    r.drive_db = drive_->text().trimmed().toStdString();
    r.drive_map = drive_map_->text().trimmed().toStdString();
    r.drive_span = drive_span_->isChecked();
    if (!r.drive_db.empty() && !QFileInfo(drive_->text().trimmed()).isFile())
        errors << tr("Measurements: %1 is not a file").arg(drive_->text().trimmed());
    if (!r.drive_map.empty() && !QFileInfo(drive_map_->text().trimmed()).isFile())
        errors << tr("Map: %1 is not a file").arg(drive_map_->text().trimmed());
    if (!errors.isEmpty()) {
        problems_->setText(errors.join("\n"));
        problems_->show();
        return;
    }
    request_ = std::move(r);
    QDialog::accept();
}

}  // namespace ct::app
