#include "checks_panel.hpp"

#include "scenario_document.hpp"
#include "table_util.hpp"

#include <clustertwin/sim/impact.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ct::app {

namespace {
void addRow(QTableWidget* t, const QStringList& cells, const QColor& colour = {}) {
    const int row = t->rowCount();
    t->insertRow(row);
    for (int c = 0; c < cells.size(); ++c) {
        auto* it = new QTableWidgetItem(cells[c]);
        if (colour.isValid() && c == 0) it->setForeground(colour);
        t->setItem(row, c, it);
    }
}
}  // namespace

ChecksPanel::ChecksPanel(const ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    setObjectName("checksPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    table_ = makeListTable(this, {tr("severity"), tr("check"), tr("entity"), tr("finding")});
    table_->setObjectName("checksTable");
    impact_title_ = new QLabel(this);
    impact_ = makeListTable(this, {tr("loses"), tr("entity")});
    impact_->setObjectName("impactTable");
    impact_title_->hide();
    impact_->hide();
    l->addWidget(table_, 2);
    l->addWidget(impact_title_);
    l->addWidget(impact_, 1);
    connect(&doc_, &ScenarioDocument::changed, this, &ChecksPanel::refresh);
    connect(&doc_, &ScenarioDocument::edited, this, &ChecksPanel::refresh);
    for (QTableWidget* t : {table_, impact_})
        connect(t, &QTableWidget::cellClicked, this, [this, t](int row, int) {
            if (auto* it = t->item(row, t == table_ ? 2 : 1)) emit entityActivated(it->text());
        });
    refresh();
}

void ChecksPanel::refresh() {
    table_->setRowCount(0);
    for (const auto& f : doc_.findings()) {
        const bool err = f.severity == model::Severity::Error;
        addRow(table_,
               {err ? tr("error") : tr("warning"), QString::fromStdString(f.kind), QString::fromStdString(f.entity),
                QString::fromStdString(f.message)},
               err ? QColor(220, 50, 40) : QColor(200, 140, 20));
    }
}

void ChecksPanel::clearImpact() {
    impact_->setRowCount(0);
    impact_title_->clear();
    impact_title_->hide();
    impact_->hide();
}

void ChecksPanel::showImpact(const sim::ImpactReport& r) {
    impact_->setRowCount(0);
    auto add = [&](const QString& what, const std::vector<std::string>& ids) {
        for (const auto& id : ids) addRow(impact_, {what, QString::fromStdString(id)});
    };
    add(tr("power"), r.racks_unpowered);
    add(tr("power"), r.nodes_unpowered);
    add(tr("redundancy (one feed left)"), r.racks_single_fed);
    add(tr("cooling"), r.racks_cooling_short);
    add(tr("connectivity"), r.nodes_disconnected);
    add(tr("fabric link"), r.gpus_without_fabric_link);
    add(tr("lost"), r.nodes_lost);
    add(tr("lost"), r.gpus_lost);
    add(tr("job hit"), r.jobs_hit);
    for (const auto& o : r.overloaded) addRow(impact_, {tr("overloaded"), QString::fromStdString(o.substr(0, o.find(' ')))});
    QString notes;
    for (const auto& n : r.notes) notes += "\n" + QString::fromStdString(n);
    impact_title_->setText(tr("If %1 %2 fails: %3 affected%4")
                               .arg(QString::fromStdString(r.kind), QString::fromStdString(r.failed))
                               .arg(impact_->rowCount())
                               .arg(notes));
    impact_title_->setWordWrap(true);
    impact_title_->show();
    impact_->show();
}

}  // namespace ct::app
