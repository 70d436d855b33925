#include "alerts_panel.hpp"
#include "qstr.hpp"

#include "run_controller.hpp"

#include <clustertwin/model/alerts.hpp>
#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace ct::app {

namespace {
enum Column { kTime, kSeverity, kAlert, kEntity, kValue, kLimit, kMessage, kColumns };
constexpr int kKeyRole = Qt::UserRole;       // the alert's acknowledgement key ("" on group rows)
constexpr int kTimeRole = Qt::UserRole + 1;  // seconds from the run's start
constexpr int kEntityRole = Qt::UserRole + 2;

QString keyOf(const runs::StoredEvent& e) { return QString("%1|%2|%3").arg(e.t_s, 0, 'f', 3).arg(qs(e.kind), qs(e.target)); }

QColor severityColour(model::AlertSeverity s) {
    switch (s) {
        case model::AlertSeverity::Critical:
            return QColor(200, 40, 40);
        case model::AlertSeverity::Warning:
            return QColor(190, 120, 0);
        case model::AlertSeverity::Info:
            return QColor(70, 110, 170);
    }
    return {};
}

QString formatted(const std::optional<double>& v, const std::string& metric) {
    if (!v || metric.empty()) return v ? QString::number(*v, 'g', 4) : QString();
    return qs(model::formatMetric(*v, model::metricInfo(metric)));
}
}  // namespace

AlertsPanel::AlertsPanel(const RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("alertsPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    severity_ = new QComboBox(this);
    severity_->setObjectName("alertSeverityFilter");
    severity_->addItem(tr("All alerts"), 0);
    severity_->addItem(tr("Warnings and critical"), 1);
    severity_->addItem(tr("Critical only"), 2);
    severity_->setCurrentIndex(1);  // scenario events are on the timeline; the list is for what went wrong
    filter_ = new QLineEdit(this);
    filter_->setObjectName("alertTextFilter");
    filter_->setPlaceholderText(tr("Filter by entity, kind or text"));
    filter_->setClearButtonEnabled(true);
    group_ = new QCheckBox(tr("Group by kind"), this);
    group_->setObjectName("alertGroupByKind");
    group_->setChecked(true);
    hide_acked_ = new QCheckBox(tr("Hide acknowledged"), this);
    hide_acked_->setObjectName("alertHideAcknowledged");
    ack_ = new QPushButton(tr("Acknowledge"), this);
    ack_->setObjectName("alertAcknowledge");
    ack_->setToolTip(tr("Mark the selected alerts (or a whole group) as seen for this session"));
    bar->addWidget(severity_);
    bar->addWidget(filter_, 1);
    bar->addWidget(group_);
    bar->addWidget(hide_acked_);
    bar->addWidget(ack_);
    l->addLayout(bar);
    tree_ = new QTreeWidget(this);
    tree_->setObjectName("alertsTree");
    tree_->setColumnCount(kColumns);
    tree_->setHeaderLabels({tr("time"), tr("severity"), tr("alert"), tr("entity"), tr("value"), tr("limit"), tr("message")});
    tree_->setRootIsDecorated(true);
    tree_->setUniformRowHeights(true);
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    tree_->header()->setStretchLastSection(true);
    l->addWidget(tree_, 1);

    connect(&run_, &RunController::runChanged, this, [this] {
        acked_.clear();
        refresh(true);
    });
    connect(&run_, &RunController::timeChanged, this, [this] { refresh(); });
    connect(severity_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(filter_, &QLineEdit::textChanged, this, [this] { refresh(); });
    connect(group_, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(hide_acked_, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(ack_, &QPushButton::clicked, this, &AlertsPanel::acknowledgeSelected);
    connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* it, int) {
        const QString entity = it->data(0, kEntityRole).toString();
        if (!entity.isEmpty()) emit alertActivated(entity, it->data(0, kTimeRole).toDouble());
    });
}

void AlertsPanel::acknowledgeSelected() {
    for (QTreeWidgetItem* it : tree_->selectedItems()) {
        const QString key = it->data(0, kKeyRole).toString();
        if (!key.isEmpty()) acked_.insert(key);
        for (int c = 0; c < it->childCount(); ++c) acked_.insert(it->child(c)->data(0, kKeyRole).toString());
    }
    refresh(true);
}

void AlertsPanel::refresh(bool force) {
    const auto* rp = run_.replay();
    const int min_sev = severity_->currentData().toInt();
    const QString text = filter_->text().trimmed();
    std::vector<const runs::StoredEvent*> shown;
    if (rp)
        for (const auto& e : rp->events()) {
            const model::AlertKindInfo k = model::alertKind(e.kind);
            if (static_cast<int>(model::severityOf(e.kind, e.severity)) < min_sev) continue;
            if (hide_acked_->isChecked() && acked_.contains(keyOf(e))) continue;
            if (!text.isEmpty() && !qs(e.target).contains(text, Qt::CaseInsensitive) && !qs(k.title).contains(text, Qt::CaseInsensitive) &&
                !qs(e.message).contains(text, Qt::CaseInsensitive) && !qs(e.kind).contains(text, Qt::CaseInsensitive))
                continue;
            shown.push_back(&e);
        }
    // Rebuild only when what is listed changes; the time (playback moves it every frame, a click on an alert moves
    // it to that alert) only restyles the rows, so the list keeps its order, selection and scroll position.
    const QString sig = QString("%1|%2|%3|%4|%5|%6")
                            .arg(shown.size())
                            .arg(min_sev)
                            .arg(text)
                            .arg(group_->isChecked())
                            .arg(hide_acked_->isChecked())
                            .arg(acked_.size());
    if (!force && sig == signature_) {
        markLater();
        return;
    }
    signature_ = sig;
    shown_count_ = static_cast<int>(shown.size());
    tree_->clear();
    auto row = [&](const runs::StoredEvent& e) {
        const model::AlertKindInfo k = model::alertKind(e.kind);
        auto* it = new QTreeWidgetItem;
        const double t = e.t_s - rp->startS();
        const double wall = run_.wallClockAt(t);  // measured data: when it happened
        it->setText(kTime, std::isfinite(wall) ? wallClockText(wall) : qs(model::formatDuration(t)));
        const model::AlertSeverity sev = model::severityOf(e.kind, e.severity);  // a rule's own, else its kind's
        it->setText(kSeverity, qs(model::toString(sev)));
        it->setForeground(kSeverity, severityColour(sev));
        it->setText(kAlert, qs(k.title));
        it->setToolTip(kAlert, qs(e.kind + ": " + k.about));
        it->setText(kEntity, qs(e.target));
        it->setText(kValue, formatted(e.value, k.metric));
        it->setText(kLimit, formatted(e.threshold, k.metric));
        it->setText(kMessage, qs(e.message));
        it->setData(0, kKeyRole, keyOf(e));
        it->setData(0, kTimeRole, t);
        it->setData(0, kEntityRole, qs(e.target));
        if (acked_.contains(keyOf(e)))
            for (int c = 0; c < kColumns; ++c) it->setForeground(c, QColor(150, 150, 150));
        return it;
    };
    if (!group_->isChecked()) {
        for (const auto* e : shown) tree_->addTopLevelItem(row(*e));
    } else {
        // One group per kind, the most severe first, each with its count and its first time.
        std::map<std::pair<int, std::string>, std::vector<const runs::StoredEvent*>> groups;
        for (const auto* e : shown) groups[{-static_cast<int>(model::severityOf(e->kind, e->severity)), e->kind}].push_back(e);
        for (const auto& [key, list] : groups) {
            const model::AlertKindInfo k = model::alertKind(key.second);
            const auto sev = static_cast<model::AlertSeverity>(-key.first);
            auto* g = new QTreeWidgetItem;
            const double t0 = list.front()->t_s - rp->startS(), wall0 = run_.wallClockAt(t0);
            g->setText(kTime, std::isfinite(wall0) ? wallClockText(wall0) : qs(model::formatDuration(t0)));
            g->setText(kSeverity, qs(model::toString(sev)));
            g->setForeground(kSeverity, severityColour(sev));
            g->setText(kAlert, tr("%1 (%2)").arg(qs(k.title)).arg(list.size()));
            g->setToolTip(kAlert, qs(k.about));
            QFont f = g->font(kAlert);
            f.setBold(true);
            g->setFont(kAlert, f);
            for (const auto* e : list) g->addChild(row(*e));
            tree_->addTopLevelItem(g);
        }
        if (groups.size() <= 3) tree_->expandAll();
    }
    for (int c = 0; c < kMessage; ++c) tree_->resizeColumnToContents(c);
    markLater();
}

void AlertsPanel::markLater() {
    // The whole run's alerts stay listed; those raised after the current time are set in grey italics ("later").
    const auto* rp = run_.replay();
    if (!rp) return;
    const double now = run_.absoluteTime() - rp->startS();
    int raised = 0;
    auto style = [&](QTreeWidgetItem* it, bool later) {
        for (int c = 0; c < kColumns; ++c) {
            QFont f = it->font(c);
            if (f.italic() == later) continue;
            f.setItalic(later);
            it->setFont(c, f);
        }
        const bool acked = acked_.contains(it->data(0, kKeyRole).toString());
        it->setForeground(kTime, later || acked ? QColor(150, 150, 150) : tree_->palette().color(QPalette::Text));
        it->setToolTip(kTime, later ? tr("Raised later than the time shown") : QString());
    };
    for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* top = tree_->topLevelItem(i);
        if (top->childCount() == 0) {
            const bool later = top->data(0, kTimeRole).toDouble() > now + 1e-6;
            raised += later ? 0 : 1;
            style(top, later);
            continue;
        }
        int group_raised = 0;
        for (int c = 0; c < top->childCount(); ++c) {
            QTreeWidgetItem* it = top->child(c);
            const bool later = it->data(0, kTimeRole).toDouble() > now + 1e-6;
            group_raised += later ? 0 : 1;
            style(it, later);
        }
        raised += group_raised;
        style(top, group_raised == 0);
    }
    raised_count_ = raised;
}

}  // namespace ct::app
