#include "run_picker.hpp"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ct::app {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString state(const runs::RunOverview& r) {
    if (r.interrupted) return QObject::tr("interrupted");
    if (!r.t0_s) return QObject::tr("no samples");
    return r.complete ? QObject::tr("complete") : QObject::tr("incomplete");
}
}  // namespace

void RunPicker::choose(QWidget* parent, const QString& db, const std::function<void(std::int64_t)>& open) {
    std::vector<runs::RunOverview> runs;
    try {
        auto store = runs::TelemetryStore::open(db.toStdString(), runs::TelemetryStore::Mode::Existing);
        runs = runs::describeRuns(store);
    } catch (const std::exception& e) {
        QMessageBox::warning(parent, tr("Open run"), QString::fromStdString(e.what()));
        return;
    }
    if (runs.size() <= 1) {
        open(0);  // one run (or none: the load says so)
        return;
    }
    auto* picker = new RunPicker(db, std::move(runs), parent);
    picker->setAttribute(Qt::WA_DeleteOnClose);
    connect(picker, &QDialog::accepted, picker, [picker, open] { open(picker->run()); });
    picker->open();
}

std::int64_t RunPicker::defaultRun(const std::vector<runs::RunOverview>& runs) {
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)
        if (it->samples > 0) return it->info.id;
    return runs.empty() ? 0 : runs.back().info.id;
}

RunPicker::RunPicker(const QString& db, std::vector<runs::RunOverview> runs, QWidget* parent) : QDialog(parent), runs_(std::move(runs)) {
    setObjectName("runPicker");
    setWindowTitle(tr("Open run"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("%1 holds %n run(s). Choose one:", nullptr, static_cast<int>(runs_.size())).arg(db), this));
    auto* split = new QSplitter(Qt::Vertical, this);
    table_ = new QTableWidget(static_cast<int>(runs_.size()), 7, split);
    table_->setObjectName("runTable");
    table_->setHorizontalHeaderLabels({tr("Run"), tr("Name"), tr("Kind"), tr("Scenario"), tr("State"), tr("From – to"), tr("Samples")});
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    const std::int64_t preferred = defaultRun(runs_);
    int preferred_row = 0;
    for (int i = 0; i < static_cast<int>(runs_.size()); ++i) {
        const auto& r = runs_[static_cast<std::size_t>(i)];
        const QString span = r.t0_s ? q(runs::formatRunTime(r, *r.t0_s)) + " – " + q(runs::formatRunTime(r, *r.t1_s)) : QString("–");
        const QStringList cells = {QString::number(r.info.id),
                                   q(r.info.name),
                                   q(r.info.kind),
                                   r.info.scenario_id.empty() ? "–" : q(r.info.scenario_id),
                                   state(r),
                                   span,
                                   QLocale().toString(static_cast<qlonglong>(r.samples))};
        for (int c = 0; c < cells.size(); ++c) table_->setItem(i, c, new QTableWidgetItem(cells[c]));
        if (r.info.id == preferred) preferred_row = i;
    }
    table_->resizeColumnsToContents();
    details_ = new QTreeWidget(split);
    details_->setObjectName("runDetails");
    details_->setHeaderLabels({tr("What"), tr("Unit"), tr("Samples"), tr("Entities"), tr("From – to")});
    layout->addWidget(split, 1);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(table_, &QTableWidget::currentCellChanged, this, [this, buttons](int row) {
        showDetails(row);
        const bool empty =
            row >= 0 && runs_[static_cast<std::size_t>(row)].samples == 0 && runs_[static_cast<std::size_t>(row)].events == 0;
        buttons->button(QDialogButtonBox::Open)->setEnabled(row >= 0 && !empty);  // an empty run shows nothing
    });
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this] { accept(); });
    table_->setCurrentCell(preferred_row, 0);
    showDetails(preferred_row);
    resize(900, 560);
}

std::int64_t RunPicker::run() const {
    const int row = table_->currentRow();
    return row < 0 ? 0 : runs_[static_cast<std::size_t>(row)].info.id;
}

void RunPicker::showDetails(int row) {
    details_->clear();
    if (row < 0) return;
    const auto& r = runs_[static_cast<std::size_t>(row)];
    summary_->setText(tr("Source: %1. %2 events%3.").arg(q(r.source)).arg(r.events).arg(r.jobs ? tr(", %1 jobs").arg(r.jobs) : QString()));
    auto* ents = new QTreeWidgetItem(details_, {tr("Entities")});
    for (const auto& [kind, n] : r.entity_kinds) new QTreeWidgetItem(ents, {q(kind), QString(), QString(), QString::number(n)});
    auto* mets = new QTreeWidgetItem(details_, {tr("Metrics (%1)").arg(r.metrics.size())});
    for (const auto& m : r.metrics)
        new QTreeWidgetItem(mets,
                            {q(m.metric), q(m.unit), QLocale().toString(static_cast<qlonglong>(m.samples)), QString::number(m.entities),
                             q(runs::formatRunTime(r, m.t0_s)) + " – " + q(runs::formatRunTime(r, m.t1_s))});
    if (!r.sources.empty()) {
        auto* src = new QTreeWidgetItem(details_, {tr("Files read (%1)").arg(r.sources.size())});
        for (const auto& s : r.sources) new QTreeWidgetItem(src, {q(s.name), QString(), QString::number(s.samples)});
    }
    details_->expandItem(ents);
    details_->expandItem(mets);
    details_->resizeColumnToContents(0);
}

}  // namespace ct::app
