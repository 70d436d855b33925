#include "telemetry_control.hpp"

#include "run_controller.hpp"
#include "scenario_document.hpp"

#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/model/scenario_io.hpp>

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QUrl>

#include <chrono>
#include <cmath>

namespace ct::app {

namespace {
double nowS() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }
QString clock(double unix_s) { return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(unix_s * 1000)).toString("HH:mm:ss"); }
}  // namespace

struct TelemetryControl::Follow {
    importers::PrometheusRange range;         // url, queries, step; from/to set per poll
    std::optional<model::Scenario> scenario;  // the scenario at connect time: every poll maps alike
    QString scenario_file;
    QString db, run_name;
    QString rules_file;                                 // the alert rules every poll evaluates ("" built-in)
    std::shared_ptr<importers::AlertEvaluator> alerts;  // ... with their state, from the last read
    bool live = true;                                   // false: read once, then drop the connection
    double last_to = 0;                                 // the newest time read (aligned to the step)
    std::size_t failures = 0;                           // polls failed in a row
    QString last_error;
    std::vector<importers::ImportedEntity> entities;
    bool opened = false;  // the run was opened (or offered) once
};

TelemetryControl::TelemetryControl(QMainWindow* window, const ScenarioDocument& doc, RunController& run,
                                   std::function<bool(const QString&)> open_scenario, std::function<QString()> runs_folder)
    : QObject(window),
      window_(window),
      doc_(doc),
      run_(run),
      open_scenario_(std::move(open_scenario)),
      runs_folder_(std::move(runs_folder)) {
    progress_ = new QProgressBar;
    progress_->setObjectName("importProgress");
    progress_->setMaximumWidth(220);
    progress_->setRange(0, 100);
    progress_->hide();
    follow_label_ = new QLabel;
    follow_label_->setObjectName("followStatus");
    follow_label_->hide();
    cancel_ = new QPushButton(tr("Cancel import"));
    cancel_->setObjectName("cancelImport");
    cancel_->hide();
    window_->statusBar()->addPermanentWidget(follow_label_);
    window_->statusBar()->addPermanentWidget(progress_);
    window_->statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, this, &TelemetryControl::cancel);
    connect(&poll_timer_, &QTimer::timeout, this, &TelemetryControl::poll);
}

TelemetryControl::~TelemetryControl() {
    poll_timer_.stop();
    if (job_) {  // the window closes during an import: stop it and wait (what it read is kept)
        job_->cancel();
        job_->wait();
        delete job_;
    }
}

void TelemetryControl::populate(QMenu* file) {
    file->addAction(tr("&Import telemetry…"), this, &TelemetryControl::showImportDialog);
    file->addAction(tr("Connect to &Prometheus…"), this, &TelemetryControl::showConnectDialog);
    stop_action_ = file->addAction(tr("Stop &following Prometheus"), this, &TelemetryControl::stopFollowing);
    stop_action_->setEnabled(false);
}

void TelemetryControl::showImportDialog() {
    ImportDialog d(runs_folder_() + "/telemetry.sqlite", window_);
    if (d.exec() != QDialog::Accepted) return;
    if (!importFiles(d.settings())) window_->statusBar()->showMessage(tr("An import is already running"));
}

void TelemetryControl::showConnectDialog() {
    PrometheusDialog d(runs_folder_() + "/prometheus.sqlite", window_);
    if (d.exec() != QDialog::Accepted) return;
    if (!connectPrometheus(d.settings())) window_->statusBar()->showMessage(tr("An import is already running"));
}

bool TelemetryControl::importFiles(const FileImportSettings& s) {
    if (job_ || s.paths.isEmpty()) return false;
    ImportRequest r;
    r.db = s.db.isEmpty() ? runs_folder_() + "/telemetry.sqlite" : s.db;
    r.run_name = s.run_name.isEmpty() ? tr("import %1").arg(QDateTime::currentDateTime().toString("yyyy-MM-dd HH:mm:ss")) : s.run_name;
    r.paths = s.paths;
    r.tz_offset_s = s.tz_offset_s;
    r.rules_file = s.rules_file;
    r.scenario = doc_.scenario();
    r.scenario_file = doc_.path();
    return start(std::move(r), false);
}

bool TelemetryControl::connectPrometheus(const PrometheusSettings& s) {
    if (job_ || s.step_s <= 0) return false;
    stopFollowing();
    auto f = std::make_unique<Follow>();
    f->range.url = s.url.toStdString();
    for (const QString& q : s.queries) f->range.queries.push_back(q.toStdString());
    if (s.dcgm)
        f->range.queries.insert(f->range.queries.end(), importers::dcgmPresetQueries().begin(), importers::dcgmPresetQueries().end());
    if (f->range.queries.empty()) return false;
    f->range.step_s = s.step_s;
    // Every read on one grid of the step, so that polls continue the first read without overlap.
    f->range.to_s = std::floor(nowS() / s.step_s) * s.step_s;
    f->range.from_s = f->range.to_s - std::ceil(std::max(s.lookback_s, s.step_s) / s.step_s) * s.step_s;
    f->scenario = doc_.scenario();
    f->scenario_file = doc_.path();
    f->db = s.db.isEmpty() ? runs_folder_() + "/prometheus.sqlite" : s.db;
    f->rules_file = s.rules_file;
    const QUrl url(s.url);
    f->run_name = "prometheus " + url.host() + (url.port() > 0 ? ":" + QString::number(url.port()) : QString());
    ImportRequest r;
    r.db = f->db;
    r.run_name = f->run_name;
    r.prometheus = f->range;
    r.rules_file = f->rules_file;
    r.scenario = f->scenario;
    r.scenario_file = f->scenario_file;
    f->live = s.follow;
    follow_ = std::move(f);
    if (!start(std::move(r), false)) {
        follow_.reset();
        return false;
    }
    return true;
}

bool TelemetryControl::start(ImportRequest request, bool poll) {
    if (job_) return false;
    QDir().mkpath(QFileInfo(request.db).absolutePath());
    job_ = new ImportJob(std::move(request), this);
    job_is_poll_ = poll;
    connect(job_, &ImportJob::progress, this, [this](int pct, const QString& what) {
        if (job_is_poll_) return;
        progress_->setValue(pct);
        window_->statusBar()->showMessage(tr("Importing %1").arg(what));
    });
    ImportJob* job = job_;
    connect(job_, &QThread::finished, this, [this, job] { finished(job); });
    if (!poll) {
        progress_->setValue(0);
        window_->statusBar()->showMessage(job_->request().prometheus
                                              ? tr("Reading from %1…").arg(QString::fromStdString(job_->request().prometheus->url))
                                              : tr("Importing %1 file(s) or folder(s)…").arg(job_->request().paths.size()));
    }
    updateWidgets();
    job_->start();
    return true;
}

void TelemetryControl::finished(ImportJob* job) {
    const ImportOutcome o = job->outcome();
    const bool poll = job_is_poll_;
    const bool prometheus = job->request().prometheus.has_value();
    const double read_to = prometheus ? job->request().prometheus->to_s : 0;
    job->deleteLater();
    job_ = nullptr;
    const QString how = !o.error.isEmpty() || (o.exit_code == 2 && !o.cancelled) ? "failed" : o.cancelled ? "cancelled" : "finished";
    if (poll) {
        if (!follow_) {  // stopped while the poll was reading
            updateWidgets();
            return;
        }
        const bool ok = o.error.isEmpty() && o.failed.isEmpty();
        if (ok) {
            follow_->last_to = read_to;
            follow_->failures = 0;
            follow_->last_error.clear();
        } else {  // the server went away or refused: try again at the next poll, from where we were
            ++follow_->failures;
            follow_->last_error = !o.error.isEmpty() ? o.error : o.failed.join("; ");
        }
        if (!o.entities.empty()) follow_->entities = o.entities;
        if (o.stored > 0) {
            last_ = o;
            last_.entities = follow_->entities;
            // Reload the run when it is shown; open it when the first readings arrive, but never again once
            // the user went to another run or scenario.
            if (runShown(last_) || !follow_->opened) {
                follow_->opened = true;
                showRun(last_);
            }
        }
        updateWidgets();
        emit polled(o.stored);
        return;
    }
    last_ = o;
    QString extra;
    if (prometheus && follow_) {
        // A server that cannot be read at all is reported now rather than polled in the background.
        if (o.cancelled || !o.error.isEmpty() || !follow_->live || (!o.failed.isEmpty() && o.stored == 0)) {
            follow_.reset();
        } else {
            follow_->last_to = read_to;
            follow_->entities = o.entities;
            follow_->alerts = o.alerts;  // the polls go on with the rules' state
            poll_timer_.start(static_cast<int>(std::max(2.0, follow_->range.step_s) * 1000));
            extra = tr("Following %1: every %2 s the newest readings are added to this run and the view moves to them.")
                        .arg(QString::fromStdString(follow_->range.url))
                        .arg(std::max(2.0, follow_->range.step_s));
        }
    }
    const QString title = prometheus ? tr("Connect to Prometheus") : tr("Import telemetry");
    report(o, title, extra);
    if (o.stored > 0 && !o.run_removed) {
        if (follow_) follow_->opened = true;
        showRun(o);
    }
    updateWidgets();
    window_->statusBar()->showMessage(how == "finished"    ? tr("Imported into run %1 of %2").arg(o.run).arg(o.db)
                                      : how == "cancelled" ? tr("Import cancelled")
                                                           : tr("Import failed"));
    emit importEnded(how);
}

void TelemetryControl::poll() {
    if (!follow_ || job_) return;  // the last poll is still reading
    const double step = follow_->range.step_s;
    const double to = std::floor(nowS() / step) * step;
    const double from = follow_->last_to + step;
    if (to < from) return;
    ImportRequest r;
    r.db = follow_->db;
    r.run_name = follow_->run_name;
    r.prometheus = follow_->range;
    r.prometheus->from_s = from;
    r.prometheus->to_s = to;
    r.prometheus->retries = 0;  // the next poll is the retry
    r.rules_file = follow_->rules_file;
    r.alerts = follow_->alerts;  // the rules' state: this poll evaluates only what it adds
    r.scenario = follow_->scenario;
    r.scenario_file = follow_->scenario_file;
    start(std::move(r), true);
}

void TelemetryControl::cancel() {
    if (job_) job_->cancel();
    else stopFollowing();
}

void TelemetryControl::stopFollowing() {
    poll_timer_.stop();
    if (!follow_) return;
    if (job_ && job_is_poll_) job_->cancel();
    follow_.reset();
    updateWidgets();
    window_->statusBar()->showMessage(tr("Stopped following Prometheus"));
}

bool TelemetryControl::runShown(const ImportOutcome& o) const {
    return run_.hasRun() && run_.databasePath() == o.db && run_.replay()->info().id == o.run;
}

void TelemetryControl::showRun(const ImportOutcome& o) {
    if (runShown(o)) {  // a poll added readings: reload, staying at now unless the user went back in time
        const double t = run_.time();
        const bool at_end = t >= run_.duration() - 1e-6;
        if (!at_end)
            connect(
                &run_, &RunController::runChanged, this, [this, t] { run_.setTime(t); }, Qt::SingleShotConnection);
        run_.openAsync(o.db, o.run);
        return;
    }
    // A run none of whose entities the open scenario has would be turned away: the report offers a
    // scenario built from the telemetry instead (once per import or connection).
    const bool unmatched = o.matched == 0 && hasNodes(doc_.scenario()) && !o.entities.empty();
    if (unmatched) {
        if (report_ && !report_->findChild<QPushButton*>("showOnTelemetryScenario")) {
            QPushButton* b = report_->addButton(tr("Show on a scenario built from this telemetry"), QMessageBox::AcceptRole);
            b->setObjectName("showOnTelemetryScenario");
            connect(b, &QPushButton::clicked, this, [this] {
                QString why;
                if (!showOnScenarioFromTelemetry(&why)) QMessageBox::warning(window_, tr("Import telemetry"), why);
            });
            report_->setInformativeText(report_->informativeText() + "\n\n" +
                                        tr("None of these entities is in scenario %1, so the run is not shown on it.")
                                            .arg(QString::fromStdString(doc_.scenario().id)));
            report_->show();
        }
        return;
    }
    run_.openAsync(o.db, o.run);
}

bool TelemetryControl::showOnScenarioFromTelemetry(QString* error) {
    const ImportOutcome o = last_;
    if (o.entities.empty() || o.run <= 0 || o.run_removed) {
        if (error) *error = tr("The last import holds nothing a scenario can be built from.");
        return false;
    }
    std::vector<std::string> notes;
    const QString path =
        QFileInfo(o.db).absolutePath() + "/" + QFileInfo(o.db).completeBaseName() + QString("-run%1.scenario.json").arg(o.run);
    try {
        const model::Scenario sk = importers::skeletonScenario(o.entities, &notes);
        model::writeFileAtomically(path.toStdString(), model::scenarioToJson(sk));
    } catch (const std::exception& e) {
        if (error) *error = tr("Could not build a scenario from the telemetry: %1").arg(e.what());
        return false;
    }
    if (!open_scenario_(path)) {
        if (error) *error = tr("The scenario built from the telemetry (%1) could not be opened.").arg(path);
        return false;
    }
    run_.openAsync(o.db, o.run);
    window_->statusBar()->showMessage(tr("Showing run %1 on %2").arg(o.run).arg(path));
    return true;
}

void TelemetryControl::report(const ImportOutcome& o, const QString& title, const QString& extra) {
    delete report_;
    const bool bad = !o.error.isEmpty() || o.exit_code != 0;
    report_ = new QMessageBox(bad ? QMessageBox::Warning : QMessageBox::Information, title, QString(), QMessageBox::Close, window_);
    report_->setObjectName("importReport");
    QString text = !o.error.isEmpty() ? tr("The import failed: %1").arg(o.error)
                   : o.cancelled      ? tr("Import cancelled; what was read before is kept.")
                   : o.exit_code == 2 ? tr("Nothing could be read.")
                   : o.exit_code == 3 ? tr("Imported, but some files or records could not be read.")
                                      : tr("Imported.");
    report_->setText(text);
    QString info = o.summary;
    if (!o.failed.isEmpty()) info += "\n\n" + tr("Not read:") + "\n" + o.failed.mid(0, 20).join("\n") + (o.failed.size() > 20 ? "\n…" : "");
    if (!extra.isEmpty()) info += "\n\n" + extra;
    report_->setInformativeText(info);
    report_->setWindowModality(Qt::NonModal);
    report_->show();
}

QString TelemetryControl::followStatus() const { return follow_ ? follow_label_->text() : QString(); }

void TelemetryControl::updateWidgets() {
    const bool importing = job_ && !job_is_poll_;
    progress_->setVisible(importing);
    const bool following = follow_ && follow_->live && !importing;
    if (following) {
        QString t = tr("Following %1").arg(QString::fromStdString(follow_->range.url));
        if (follow_->last_to > 0) t += tr(" · newest %1").arg(clock(follow_->last_to));
        if (follow_->failures) t += tr(" · %1 poll(s) failed: %2").arg(follow_->failures).arg(follow_->last_error.left(120));
        follow_label_->setText(t);
        follow_label_->setVisible(true);
    } else {
        follow_label_->clear();
        follow_label_->hide();
    }
    cancel_->setText(importing ? tr("Cancel import") : tr("Stop following"));
    cancel_->setVisible(importing || following);
    if (stop_action_) stop_action_->setEnabled(follow_ != nullptr);
}

}  // namespace ct::app
