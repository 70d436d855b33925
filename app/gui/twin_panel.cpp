#include "twin_panel.hpp"
#include "file_row.hpp"
#include "qstr.hpp"

#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "twin_jobs.hpp"

#include <clustertwin/runs/replay.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ct::app {

namespace {
QString num(double v, int decimals) { return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("–"); }

/// The database a run's "driven_by" names ("FILE, run N" → FILE).
QString drivenFile(const std::string& driven_by) {
    const auto p = driven_by.rfind(", run ");
    return qs(p == std::string::npos ? driven_by : driven_by.substr(0, p));
}
}  // namespace

TwinPanel::TwinPanel(const RunController& run, const ScenarioDocument& doc, QWidget* parent) : QWidget(parent), run_(run), doc_(doc) {
    setObjectName("twinPanel");
    auto* l = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    measured_ = new QLineEdit(this);
    measured_->setObjectName("twinMeasured");
    measured_->setPlaceholderText(tr("the hall's imported telemetry (a database)"));
    map_ = new QLineEdit(this);
    map_->setObjectName("twinMap");
    map_->setPlaceholderText(tr("optional: names that do not match by themselves"));
    form->addRow(tr("Measured"), fileRow(this, measured_, tr("Measured telemetry"), tr("Run databases (*.sqlite *.db);;All files (*)")));
    form->addRow(tr("Map"), fileRow(this, map_, tr("Map file"), tr("JSON (*.json)")));
    l->addLayout(form);
    auto* buttons = new QHBoxLayout;
    score_ = new QPushButton(tr("Score the shown run"), this);
    score_->setObjectName("twinScore");
    score_->setToolTip(
        tr("Every measured series against the run's, with the baseline 'every inlet at the supply temperature' "
           "(as clustertwin-cli score)"));
    calibrate_ = new QPushButton(tr("Calibrate…"), this);
    calibrate_->setObjectName("twinCalibrate");
    calibrate_->setToolTip(tr("Fit a few physical parameters of the scenario to these measurements (as clustertwin-cli calibrate)"));
    buttons->addWidget(score_);
    buttons->addWidget(calibrate_);
    buttons->addStretch(1);
    l->addLayout(buttons);
    status_ = new QLabel(tr("Open or run a simulation, name the measurements, then score it."), this);
    status_->setObjectName("twinStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->addWidget(status_);
    level_ = new QComboBox(this);
    level_->setObjectName("twinLevel");
    level_->addItems({tr("Overall"), tr("By entity kind"), tr("By time window"), tr("By series (double-click to chart)")});
    l->addWidget(level_);
    table_ = new QTableWidget(0, 11, this);
    table_->setObjectName("twinTable");
    table_->setHorizontalHeaderLabels({tr("Of"), tr("Metric"), tr("n"), tr("MAE"), tr("RMSE"), tr("Bias"), tr("Max"), tr("CV(RMSE) %"),
                                       tr("NMBE %"), tr("Baseline MAE"), tr("Skill")});
    table_->horizontalHeaderItem(5)->setToolTip(tr("Mean of simulated − measured: positive, the twin reads high"));
    table_->horizontalHeaderItem(10)->setToolTip(tr("1 − MAE / baseline MAE: 0 is no better than every inlet at the supply temperature"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    l->addWidget(table_, 1);
    residual_ = new QCheckBox(tr("Colour the views by the inlet residual (simulated − measured)"), this);
    residual_->setObjectName("twinResidual");
    residual_->setEnabled(false);
    l->addWidget(residual_);

    connect(score_, &QPushButton::clicked, this, [this] {
        QString why;
        if (!score(&why)) status_->setText(why);
    });
    connect(calibrate_, &QPushButton::clicked, this,
            [this] { emit calibrateRequested(measured_->text().trimmed(), map_->text().trimmed()); });
    connect(level_, &QComboBox::currentIndexChanged, this, &TwinPanel::fillTable);
    connect(residual_, &QCheckBox::toggled, this, &TwinPanel::residualColouring);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (level_->currentIndex() != 3 || !table_->item(row, 0)) return;
        emit seriesActivated(table_->item(row, 0)->text(), table_->item(row, 1)->data(Qt::UserRole).toString());
    });
    connect(&run_, &RunController::runChanged, this, &TwinPanel::runChanged);
}

TwinPanel::~TwinPanel() {
    if (job_) job_->wait();
}

void TwinPanel::runChanged() {
    report_.reset();
    overlay_.reset();
    table_->setRowCount(0);
    residual_->setChecked(false);
    residual_->setEnabled(false);
    emit overlayChanged(nullptr);
    const auto* rp = run_.replay();
    if (!rp) return;
    const auto& meta = rp->info().meta;
    if (!meta.driven_by.empty()) measured_->setText(drivenFile(meta.driven_by));
    status_->setText(
        meta.driven_by.empty()
            ? tr("Run %1 was not driven by measurements: scoring it needs the measured time of its t = 0 "
                 "(clustertwin-cli score --origin), or drive a run from them (Simulation > Run).")
                  .arg(rp->info().id)
            : tr("Run %1 was driven by %2: score it against the hall's other sensors.").arg(rp->info().id).arg(qs(meta.driven_by)));
}

bool TwinPanel::score(QString* why) {
    const auto* rp = run_.replay();
    auto no = [&](const QString& w) {
        if (why) *why = w;
        return false;
    };
    if (job_) return no(tr("A score is running"));
    if (!rp) return no(tr("No run is shown"));
    if (run_.databasePath() == measured_->text().trimmed()) return no(tr("The shown run is the measurements themselves"));
    if (!QFileInfo(measured_->text().trimmed()).isFile()) return no(tr("Measured: name a database of imported telemetry"));
    session::ScoreRequest r;
    r.run_db = run_.databasePath().toStdString();
    r.run = rp->info().id;
    r.measured_db = measured_->text().trimmed().toStdString();
    r.map_path = map_->text().trimmed().toStdString();
    scored_db_ = run_.databasePath();
    scored_run_ = rp->info().id;
    job_ = new ScoreJob(std::move(r), doc_.scenario(), this);
    connect(job_, &QThread::finished, this, &TwinPanel::jobFinished);
    score_->setEnabled(false);
    status_->setText(tr("Scoring run %1 against %2…").arg(rp->info().id).arg(measured_->text().trimmed()));
    job_->start();
    return true;
}

void TwinPanel::jobFinished() {
    ScoreJob* job = job_;
    job_ = nullptr;
    job->deleteLater();
    score_->setEnabled(true);
    const auto* rp = run_.replay();
    if (!rp || run_.databasePath() != scored_db_ || rp->info().id != scored_run_) {  // never a score beside another run
        status_->setText(tr("The shown run changed while it was being scored: score it again."));
        return;
    }
    if (!job->report()) {
        status_->setText(tr("Not scored: %1").arg(job->error()));
        emit failed(job->error());
        return;
    }
    report_ = job->report();
    overlay_ = job->overlay();
    const auto& rep = *report_;
    QString text = tr("Run %1 against %2: %3 of %4 measured series pair")
                       .arg(rep.run)
                       .arg(qs(overlay_->label))
                       .arg(rep.paired_series)
                       .arg(rep.measured_series);
    for (const auto& row : rep.overall)
        if (row.baseline && row.baseline->n > 0)
            text += tr("; %1: MAE %2 %3, baseline %4, skill %5")
                        .arg(qs(row.metric), num(row.twin.mae, 2), qs(row.unit), num(row.baseline->mae, 2),
                             num(1 - row.twin.mae / row.baseline->mae, 2));
    if (!rep.driven.empty()) text += tr(". Left out, as they drove the run: %1 series").arg(rep.driven.size());
    if (!rep.unpaired.empty()) text += tr(". Paired with nothing: %1 (first: %2)").arg(rep.unpaired.size()).arg(qs(rep.unpaired.front()));
    status_->setText(text);
    residual_->setEnabled(true);
    fillTable();
    emit overlayChanged(overlay_);
    emit scored();
}

void TwinPanel::fillTable() {
    table_->setRowCount(0);
    if (!report_) return;
    const auto& rep = *report_;
    const std::vector<session::ScoreRow>* rows[] = {&rep.overall, &rep.kinds, &rep.windows, &rep.series};
    const auto& list = *rows[std::clamp(level_->currentIndex(), 0, 3)];
    table_->setRowCount(static_cast<int>(list.size()));
    for (int i = 0; i < static_cast<int>(list.size()); ++i) {
        const auto& r = list[static_cast<std::size_t>(i)];
        const auto& t = r.twin;
        const bool base = r.baseline && r.baseline->n > 0;
        const QStringList cells = {qs(r.key),
                                   qs(r.metric) + (r.unit.empty() ? QString() : " (" + qs(r.unit) + ")"),
                                   QString::number(t.n),
                                   num(t.mae, 2),
                                   num(t.rmse, 2),
                                   num(t.bias, 2),
                                   num(t.max_abs, 2),
                                   num(t.cv_rmse_pct, 1),
                                   num(t.nmbe_pct, 1),
                                   base ? num(r.baseline->mae, 2) : QStringLiteral("–"),
                                   base ? num(1 - t.mae / r.baseline->mae, 2) : QStringLiteral("–")};
        for (int c = 0; c < cells.size(); ++c) table_->setItem(i, c, new QTableWidgetItem(cells[c]));
        table_->item(i, 1)->setData(Qt::UserRole, qs(r.metric));
    }
}

}  // namespace ct::app
