#include "fabric_panel.hpp"

#include "run_controller.hpp"

#include <clustertwin/model/fabric.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace ct::app {

namespace {

/// "leaf12" -> 12 (for ordering); -1 when not of that kind.
int indexOf(const std::string& id, const std::string& kind) {
    if (id.rfind(kind, 0) != 0) return -1;
    try {
        return std::stoi(id.substr(kind.size()));
    } catch (...) {
        return -1;
    }
}

}  // namespace

FabricPanel::FabricPanel(const RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("fabricPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    table_ = new QTableWidget(this);
    table_->setObjectName("fabricMatrix");
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setStyleSheet("color: gray; padding: 2px;");
    l->addWidget(table_, 1);
    l->addWidget(note_);
    connect(table_, &QTableWidget::cellClicked, this, [this](int r, int c) {
        if (auto* it = table_->item(r, c); it && !it->data(Qt::UserRole).toString().isEmpty())
            emit linkSelected({"link", it->data(Qt::UserRole).toString()});
    });
    // Refreshed while shown; a hidden dock (tabbed behind another) catches up when it is shown.
    auto later = [this] {
        if (isVisible()) refresh();
        else stale_ = true;
    };
    connect(&run_, &RunController::timeChanged, this, later);
    connect(&run_, &RunController::runChanged, this, later);
    note_->setText(tr("Leaf–spine links of the fabric by utilization (the busier direction) once a run is shown."));
}

void FabricPanel::refresh() {
    stale_ = false;
    setLinks(run_.hasRun() ? run_.frame().links : std::vector<model::LinkFrame>{});
}

void FabricPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (stale_) refresh();
}

void FabricPanel::setLinks(const std::vector<model::LinkFrame>& links) {
    // (leaf, spine) -> the busiest link between them (parallel cables: the busiest) and its id.
    std::map<std::pair<int, int>, std::pair<double, std::string>> cell;
    std::map<int, std::string> leaves, spines;
    for (const auto& l : links) {
        const auto sep = l.id.find("<->");
        if (sep == std::string::npos) continue;
        std::string a = l.id.substr(0, sep), b = l.id.substr(sep + 3);
        if (indexOf(a, "spine") >= 0) std::swap(a, b);
        const int li = indexOf(a, "leaf"), si = indexOf(b, "spine");
        if (li < 0 || si < 0) continue;
        leaves[li] = a;
        spines[si] = b;
        const double u = l.failed ? std::nan("") : l.utilization;
        auto& c = cell[{li, si}];
        if (c.second.empty() || (std::isfinite(u) && u > c.first) || !std::isfinite(u)) c = {u, l.id};
    }
    table_->clear();
    table_->setRowCount(static_cast<int>(leaves.size()));
    table_->setColumnCount(static_cast<int>(spines.size()));
    QStringList rows, cols;
    std::map<int, int> row_of, col_of;
    for (const auto& [i, id] : leaves) {
        row_of[i] = static_cast<int>(rows.size());
        rows << QString::fromStdString(id);
    }
    for (const auto& [i, id] : spines) {
        col_of[i] = static_cast<int>(cols.size());
        cols << QString::fromStdString(id);
    }
    table_->setVerticalHeaderLabels(rows);
    table_->setHorizontalHeaderLabels(cols);
    double hottest = 0;
    for (int r = 0; r < table_->rowCount(); ++r)
        for (int c = 0; c < table_->columnCount(); ++c) {
            auto* it = new QTableWidgetItem(QStringLiteral("·"));
            it->setTextAlignment(Qt::AlignCenter);
            it->setToolTip(tr("no link recorded here at this time (a run keeps up to 2,000 switch-to-switch links, busiest first)"));
            table_->setItem(r, c, it);
        }
    for (const auto& [key, v] : cell) {
        auto* it = table_->item(row_of[key.first], col_of[key.second]);
        it->setData(Qt::UserRole, QString::fromStdString(v.second));
        if (!std::isfinite(v.first)) {
            it->setText(tr("failed"));
            it->setBackground(QColor(200, 40, 200));
            it->setToolTip(QString::fromStdString(model::cableLabel(v.second)) + tr(": failed"));
            continue;
        }
        hottest = std::max(hottest, v.first);
        const double f = std::clamp(v.first, 0.0, 1.0);
        it->setText(QString::number(100 * v.first, 'f', 0));
        // White (idle) to red (saturated), as the 3D view's link colours.
        it->setBackground(QColor::fromRgbF(1.0f, static_cast<float>(1 - 0.8 * f), static_cast<float>(1 - 0.85 * f)));
        it->setForeground(f > 0.6 ? Qt::white : Qt::black);
        it->setToolTip(tr("%1: %2 % utilized").arg(QString::fromStdString(model::cableLabel(v.second))).arg(100 * v.first, 0, 'f', 1));
    }
    if (leaves.empty())
        note_->setText(run_.hasRun()
                           ? tr("No leaf–spine traffic at this time (jobs with a training description load the fabric, docs/network.md).")
                           : tr("Leaf–spine links of the fabric by utilization (the busier direction) once a run is shown."));
    else
        note_->setText(tr("%1 leaves × %2 spines, utilization in %; the busiest link %3 %. Click a cell for the link.")
                           .arg(leaves.size())
                           .arg(spines.size())
                           .arg(100 * hottest, 0, 'f', 0));
}

}  // namespace ct::app
