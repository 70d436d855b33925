#include "calibrate_dialog.hpp"
#include "file_row.hpp"
#include "qstr.hpp"

#include "twin_jobs.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/sim/air/air_solver.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ct::app {

namespace {
const char* kChecked[] = {"unit_airflow_margin", "unit_supply_offset"};  // a first fit: how much air, how cold

QString stats(const runs::ErrorStats& s) {
    return QObject::tr("RMSE %1, MAE %2, bias %3 (n %4)")
        .arg(s.rmse, 0, 'f', 2)
        .arg(s.mae, 0, 'f', 2)
        .arg(s.bias, 0, 'f', 2)
        .arg(static_cast<qulonglong>(s.n));
}
}  // namespace

CalibrateDialog::CalibrateDialog(const model::Scenario& s, const model::Catalog& c, const QString& measured_db, const QString& map,
                                 const QString& scenario_path, QWidget* parent)
    : QDialog(parent), scenario_(s), catalog_(c) {
    setObjectName("calibrateDialog");
    setWindowTitle(tr("Calibrate %1").arg(qs(s.id)));
    auto* l = new QVBoxLayout(this);
    l->addWidget(new QLabel(tr("Tick the parameters to fit; a target of * applies one value to all (docs/calibration.md)."), this));
    l->addWidget(buildParameters());
    auto* form = new QFormLayout;
    measured_ = new QLineEdit(measured_db, this);
    measured_->setObjectName("calibMeasured");
    map_ = new QLineEdit(map, this);
    map_->setObjectName("calibMap");
    train_ = new QLineEdit("0..2h", this);
    train_->setObjectName("calibTrain");
    train_->setToolTip(tr("On the run's clock: durations from the measurements' first driving sample (0..2h) or ISO 8601 times"));
    validate_ = new QLineEdit("2h..3h", this);
    validate_->setObjectName("calibValidate");
    validate_->setToolTip(train_->toolTip());
    air_ = new QComboBox(this);
    air_->setObjectName("calibAir");
    for (const auto& solver : sim::airSolvers()) air_->addItem(qs(solver.label), qs(solver.name));
    step_ = new QLineEdit("10s", this);
    step_->setObjectName("calibStep");
    max_runs_ = new QSpinBox(this);
    max_runs_->setObjectName("calibMaxRuns");
    max_runs_->setRange(1, 1000);
    max_runs_->setValue(20);
    max_runs_->setToolTip(tr("Runs on the scenario's grid; each step of the fit takes one"));
    weights_ = new QComboBox(this);
    weights_->setObjectName("calibWeights");
    weights_->addItem(tr("Each series by its own noise"), true);
    weights_->addItem(tr("Every sample alike"), false);
    weights_->setToolTip(
        tr("How the fit weighs each series' errors: by the noise of its sample-to-sample steps (a lattice room's "
           "sensors over a hot aisle swing ten times more than its inlets), or all alike (docs/calibration.md)"));
    coarse_ = new QCheckBox(tr("Take the fit's sensitivities on a grid twice as coarse (cheaper; the fit is the fine grid's)"), this);
    coarse_->setObjectName("calibCoarse");
    const QFileInfo fi(scenario_path.isEmpty() ? qs(s.id) + ".json" : scenario_path);
    out_ = new QLineEdit(fi.absolutePath() + "/" + fi.completeBaseName() + "-calibrated.json", this);
    out_->setObjectName("calibOut");
    form->addRow(tr("Measured"), fileRow(this, measured_, tr("Measured telemetry"), tr("Run databases (*.sqlite *.db);;All files (*)")));
    form->addRow(tr("Map"), fileRow(this, map_, tr("Map file"), tr("JSON (*.json)")));
    form->addRow(tr("Training window"), train_);
    form->addRow(tr("Validation window"), validate_);
    form->addRow(tr("Room air"), air_);
    form->addRow(tr("Engine step"), step_);
    form->addRow(tr("Runs at most"), max_runs_);
    form->addRow(tr("Errors weighted"), weights_);
    form->addRow(QString(), coarse_);
    form->addRow(tr("Calibrated scenario"), fileRow(this, out_, tr("Calibrated scenario"), tr("JSON (*.json)"), FileRowMode::Save));
    l->addLayout(form);
    problems_ = new QLabel(this);
    problems_->setObjectName("calibProblems");
    problems_->setWordWrap(true);
    problems_->setStyleSheet("color: #b00020");
    problems_->hide();
    l->addWidget(problems_);
    progress_ = new QProgressBar(this);
    progress_->setObjectName("calibProgress");
    progress_->hide();
    l->addWidget(progress_);
    result_ = new QLabel(this);
    result_->setObjectName("calibResult");
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    result_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    result_->setMinimumHeight(8 * result_->fontMetrics().lineSpacing());  // the fitted values and both scores
    l->addWidget(result_, 1);
    auto* buttons = new QDialogButtonBox(this);
    start_ = buttons->addButton(tr("Calibrate"), QDialogButtonBox::AcceptRole);
    cancel_ = buttons->addButton(tr("Close"), QDialogButtonBox::RejectRole);
    open_ = buttons->addButton(tr("Open the calibrated scenario"), QDialogButtonBox::ActionRole);
    open_->setEnabled(false);
    connect(start_, &QPushButton::clicked, this, [this] { start(); });
    connect(cancel_, &QPushButton::clicked, this, &CalibrateDialog::reject);
    connect(open_, &QPushButton::clicked, this, [this] {
        emit openCalibrated(out_->text().trimmed());
        accept();
    });
    l->addWidget(buttons);
    resize(680, 720);  // the table of parameters and the result's seven lines without scrolling
}

CalibrateDialog::~CalibrateDialog() {
    if (job_) {
        job_->cancel();
        job_->wait();
    }
}

QWidget* CalibrateDialog::buildParameters() {
    const auto& all = session::calibrationParameters();
    params_ = new QTableWidget(static_cast<int>(all.size()), 5, this);
    params_->setObjectName("calibParameters");
    params_->setHorizontalHeaderLabels({tr("Parameter"), tr("Target"), tr("Min"), tr("Max"), tr("Start")});
    params_->verticalHeader()->hide();
    for (int i = 0; i < static_cast<int>(all.size()); ++i) {
        const auto& p = all[static_cast<std::size_t>(i)];
        auto* name = new QTableWidgetItem(QString::fromLatin1(p.name));
        name->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        const bool on = std::any_of(std::begin(kChecked), std::end(kChecked), [&](const char* k) { return std::string(k) == p.name; });
        name->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        name->setToolTip(QString::fromLatin1(p.help));
        params_->setItem(i, 0, name);
        auto* target = new QTableWidgetItem(p.target[0] ? QStringLiteral("*") : QString());
        target->setToolTip(!p.target[0]                        ? tr("no target")
                           : std::strchr("aeiou", p.target[0]) ? tr("an %1's id, or * for all").arg(QString::fromLatin1(p.target))
                                                               : tr("a %1's id, or * for all").arg(QString::fromLatin1(p.target)));
        if (!p.target[0]) target->setFlags(Qt::ItemIsEnabled);
        params_->setItem(i, 1, target);
        params_->setItem(i, 2, new QTableWidgetItem(QString::number(p.min)));
        params_->setItem(i, 3, new QTableWidgetItem(QString::number(p.max)));
        auto* start = new QTableWidgetItem(QString::number(p.start));
        if (std::string(p.name) == "unit_airflow_scale")
            start->setToolTip(tr("Left at %1, the search starts where the units' measured return air puts their airflow (their heat "
                                 "balance), when it is measured")
                                  .arg(p.start));
        params_->setItem(i, 4, start);
    }
    params_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    params_->horizontalHeader()->setStretchLastSection(true);
    params_->resizeRowsToContents();
    int h = params_->horizontalHeader()->sizeHint().height() + 2 * params_->frameWidth();
    for (int i = 0; i < params_->rowCount(); ++i) h += params_->rowHeight(i);
    params_->setFixedHeight(h);  // every parameter in view, no more
    return params_;
}

bool CalibrateDialog::start() {
    if (job_) return false;
    QStringList errors;
    CalibrateJob::Setup s;
    for (int i = 0; i < params_->rowCount(); ++i) {
        if (params_->item(i, 0)->checkState() != Qt::Checked) continue;
        session::CalibParam p;
        p.name = params_->item(i, 0)->text().toStdString();
        p.target = params_->item(i, 1)->text().trimmed().isEmpty() ? "*" : params_->item(i, 1)->text().trimmed().toStdString();
        bool ok[3] = {};
        p.min = params_->item(i, 2)->text().toDouble(&ok[0]);
        p.max = params_->item(i, 3)->text().toDouble(&ok[1]);
        p.start = params_->item(i, 4)->text().toDouble(&ok[2]);
        p.value = p.start;
        p.start_given = p.start != session::calibrationParameters()[static_cast<std::size_t>(i)].start;  // changed by the user
        if (!ok[0] || !ok[1] || !ok[2] || !(p.min < p.max) || p.start < p.min || p.start > p.max)
            errors << tr("%1: the bounds and start must be numbers with min < max and the start between them").arg(qs(p.name));
        s.params.push_back(p);
    }
    if (s.params.empty()) errors << tr("Tick at least one parameter");
    if (!QFileInfo(measured_->text().trimmed()).isFile()) errors << tr("Measured: name a database of imported telemetry");
    if (out_->text().trimmed().isEmpty()) errors << tr("Name the file for the calibrated scenario");
    try {
        s.engine.step_s = model::parseDurationS(step_->text().trimmed().toStdString());
    } catch (const std::exception& e) {
        errors << tr("Engine step: %1").arg(qs(e.what()));
    }
    if (!errors.isEmpty()) {
        problems_->setText(errors.join("\n"));
        problems_->show();
        return false;
    }
    problems_->hide();
    s.scenario = scenario_;
    s.catalog = catalog_;
    s.drive.db_path = measured_->text().trimmed().toStdString();
    s.drive.map_path = map_->text().trimmed().toStdString();
    s.train = train_->text().trimmed().toStdString();
    s.validate = validate_->text().trimmed().toStdString();
    s.engine.air = air_->currentData().toString().toStdString();
    s.engine.threads = std::max(1, QThread::idealThreadCount() - 1);  // leave a core to the window
    s.max_runs = max_runs_->value();
    if (coarse_->isChecked()) s.coarse_cell_m = 2 * s.engine.cell_m;
    s.noise_weights = weights_->currentData().toBool();
    s.out_path = out_->text().trimmed().toStdString();
    job_ = new CalibrateJob(std::move(s), this);
    connect(job_, &CalibrateJob::runDone, this, [this](int run, int max_runs, double rmse) {
        // The coarse grid's runs come besides the most allowed.
        progress_->setRange(0, std::max(max_runs + 2, run));
        progress_->setValue(run);
        progress_->setFormat(tr("run %1: training RMSE %2").arg(run).arg(rmse, 0, 'f', 3));
    });
    connect(job_, &QThread::finished, this, &CalibrateDialog::jobFinished);
    progress_->setRange(0, 0);  // busy until the first run reports
    progress_->setFormat(tr("reading the measurements…"));
    progress_->show();
    start_->setEnabled(false);
    open_->setEnabled(false);
    cancel_->setText(tr("Cancel"));
    result_->clear();
    job_->start();
    return true;
}

void CalibrateDialog::cancel() {
    if (job_) job_->cancel();
}

void CalibrateDialog::reject() {
    if (job_) {  // the first Cancel stops the fit; the dialog stays to say so
        job_->cancel();
        progress_->setFormat(tr("stopping after the current run…"));
        return;
    }
    QDialog::reject();
}

void CalibrateDialog::jobFinished() {
    CalibrateJob* job = job_;
    job_ = nullptr;
    job->deleteLater();
    start_->setEnabled(true);
    cancel_->setText(tr("Close"));
    progress_->hide();
    if (job->wasCancelled()) {
        result_->setText(tr("Cancelled: nothing was written."));
        emit calibrationEnded(false, result_->text());
        return;
    }
    if (!job->result()) {
        problems_->setText(tr("Not calibrated: %1").arg(job->error()));
        problems_->show();
        emit calibrationEnded(false, job->error());
        return;
    }
    const auto& r = *job->result();
    // Sentences, not nested brackets: the stop reason and the grids each say their part.
    QString text = tr("%1 runs in %2; stopped: %3.").arg(r.runs).arg(qs(model::formatDuration(r.wall_s)), qs(r.stop));
    if (r.iterations > 0)
        text += tr(" Least squares: %1 steps, Jacobians taken: %2; %3 of the runs on the coarse grid, in %4.")
                    .arg(r.iterations)
                    .arg(r.jacobians)
                    .arg(r.coarse_runs)
                    .arg(qs(model::formatDuration(r.coarse_wall_s)));
    else if (r.coarse_runs > 0)
        text += tr(" %1 of them on the coarse grid, in %2, corrected by %3 on the runs' grid: manifold mapping.")
                    .arg(r.coarse_runs)
                    .arg(qs(model::formatDuration(r.coarse_wall_s)))
                    .arg(r.fine_runs);
    if (job->setup().noise_weights)  // the dialog's fit is least squares
        text += tr(" Each series' errors weighted by its noise: %1 to %2.").arg(r.weight_min, 0, 'g', 3).arg(r.weight_max, 0, 'g', 3);
    if (r.quantised_series > 0)
        text += tr(" %n series read in steps of %1: their noise is the rounding's (a step over √12) and the eddies the twin's own "
                   "series show, not their steps.",
                   nullptr, r.quantised_series)
                    .arg(r.resolution, 0, 'g', 3);
    text += tr(" Fitted:");
    const auto& all = session::calibrationParameters();
    for (const auto& p : r.params) {
        const auto info = std::find_if(all.begin(), all.end(), [&](const auto& i) { return p.name == i.name; });
        const QString target = info == all.end() || !info->target[0] ? QString()
                               : p.target == "*"                     ? tr(" (all)")
                                                                     : " (" + qs(p.target) + ")";
        text += QString("\n  %1%2: %3 → %4").arg(qs(p.name), target).arg(p.start).arg(p.value, 0, 'g', 4);
    }
    for (const auto& [name, start] : r.heat_balance_starts)
        text += tr("\n  The search started %1 at %2: the airflow the units' measured return air says they moved at the busiest time.")
                    .arg(qs(name))
                    .arg(start, 0, 'g', 4);
    text += tr("\nTraining: %1 → %2").arg(stats(r.train_before), stats(r.train_after));
    text += tr("\nValidation: %1 → %2").arg(stats(r.validate_before), stats(r.validate_after));
    text += tr("\nWritten to %1").arg(qs(job->setup().out_path));
    result_->setText(text);
    open_->setEnabled(true);
    emit calibrationEnded(true, text);
}

}  // namespace ct::app
