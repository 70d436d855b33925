#include "jobs_panel.hpp"
#include "qstr.hpp"

#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "table_util.hpp"

#include <clustertwin/runs/replay.hpp>

#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace ct::app {

namespace {
QString pct(double v) { return std::isfinite(v) ? QString::number(100 * v, 'f', 0) + " %" : QStringLiteral("–"); }

constexpr int kStepColumn = 5;
constexpr int kDetailsColumn = 9;
/// Where a step's time goes, as shares of the step: the GPUs computing, waiting on communication compute does
/// not hide, idle in the pipeline's bubble (the rest).
struct StepShares {
    double compute = 0, comm = 0, bubble = 0;
};
std::optional<StepShares> stepShares(const model::JobFrame& f) {
    // A run records utilization (compute / step), not the compute time itself.
    if (!(f.step_time_s > 0) || !(f.utilization > 0)) return std::nullopt;
    StepShares s;
    s.compute = std::clamp(f.utilization, 0.0, 1.0);
    s.comm = std::clamp(f.comm_share, 0.0, 1.0 - s.compute);
    s.bubble = std::max(0.0, 1.0 - s.compute - s.comm);
    return s;
}
const QColor kComputeColour(46, 139, 87), kCommColour(230, 140, 30), kBubbleColour(170, 170, 170);

/// Paints a job's step as one bar in three parts (compute, exposed communication, bubble), the shares in the
/// item's UserRole as a list of three doubles; the item's text stays for sorting, copying and the tooltip.
class StepBarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* p, const QStyleOptionViewItem& opt, const QModelIndex& index) const override {
        const QVariantList v = index.data(Qt::UserRole).toList();
        if (v.size() != 3) return QStyledItemDelegate::paint(p, opt, index);
        QStyleOptionViewItem o = opt;
        initStyleOption(&o, index);
        o.text.clear();
        o.widget->style()->drawControl(QStyle::CE_ItemViewItem, &o, p, o.widget);  // selection and background
        const QRect bar = opt.rect.adjusted(4, 5, -4, -5);
        const QColor colours[3] = {kComputeColour, kCommColour, kBubbleColour};
        double x = bar.left();
        p->save();
        for (int i = 0; i < 3; ++i) {
            const double w = v[i].toDouble() * bar.width();
            p->fillRect(QRectF(x, bar.top(), w, bar.height()), colours[i]);
            x += w;
        }
        p->setPen(opt.palette.color(QPalette::Mid));
        p->drawRect(bar.adjusted(0, 0, -1, -1));
        p->restore();
    }
    QSize sizeHint(const QStyleOptionViewItem& opt, const QModelIndex& index) const override {
        return QStyledItemDelegate::sizeHint(opt, index).expandedTo(QSize(140, 0));
    }
};
}  // namespace

JobsPanel::JobsPanel(const ScenarioDocument& doc, const RunController& run, QWidget* parent) : QWidget(parent), doc_(doc), run_(run) {
    setObjectName("jobsPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    table_ = makeListTable(this, {tr("Job"), tr("Kind"), tr("Nodes"), tr("State"), tr("Step time (s)"), tr("Where the step goes"),
                                  tr("MFU"), tr("Communication"), tr("GPU utilization"), tr("Details")});
    table_->setObjectName("jobsTable");
    table_->setItemDelegateForColumn(kStepColumn, new StepBarDelegate(table_));
    table_->horizontalHeaderItem(kStepColumn)
        ->setToolTip(tr("Green: computing; orange: waiting on communication that compute does not hide; grey: idle in the "
                        "pipeline's bubble"));
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setStyleSheet("color: gray; padding: 2px;");
    l->addWidget(table_, 1);
    l->addWidget(note_);
    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (auto* it = table_->item(row, 0)) emit jobSelected({"job", it->text()});
    });
    // Refreshed while shown; a hidden dock (tabbed behind another) catches up when it is shown.
    auto later = [this] {
        if (isVisible()) refresh();
        else stale_ = true;
    };
    connect(&run_, &RunController::timeChanged, this, later);
    connect(&run_, &RunController::runChanged, this, later);
    connect(&doc_, &ScenarioDocument::changed, this, later);
    refresh();
}

namespace {
/// A job's collectives in short: "TP all-reduce nvls/Simple, DP all-reduce ring/Simple" from the lines of
/// sim::describeCollectives ("TP all-reduce: nvls/Simple, 16 channels, 1.012 ms (…)").
QString collectivesInShort(const QString& lines) {
    QStringList out;
    for (const QString& line : lines.split('\n', Qt::SkipEmptyParts)) {
        const int colon = line.indexOf(QLatin1String(": "));
        if (colon < 0) continue;
        out << line.left(colon) + ' ' + line.mid(colon + 2).section(',', 0, 0);
    }
    return out.join(QStringLiteral(", "));
}

/// What else a job's frame says: a training job's pipeline bubble and interruptions, a served model's throughput
/// and tail latencies, and how its collectives ran (`collectives`: the run's, or the frame's own).
QString details(const model::JobFrame& f, const QString& collectives) {
    QStringList parts;
    if (f.tokens_per_s > 0)
        parts << QObject::tr("%1 tokens/s, TTFT p99 %2 s, TPOT p99 %3 ms")
                     .arg(f.tokens_per_s, 0, 'f', 0)
                     .arg(f.ttft_p99_s, 0, 'f', 2)
                     .arg(1e3 * f.tpot_p99_s, 0, 'f', 1);
    if (f.bubble_share > 0) parts << QObject::tr("bubble %1 %").arg(100 * f.bubble_share, 0, 'f', 0);
    if (f.interruptions > 0) parts << QObject::tr("%n interruption(s)", nullptr, f.interruptions);
    if (!collectives.isEmpty()) parts << collectivesInShort(collectives);
    return parts.isEmpty() ? QStringLiteral("–") : parts.join(QStringLiteral("; "));
}
}  // namespace

void JobsPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (stale_) refresh();
}

std::vector<std::string> JobsPanel::nodesOf(const QString& job) const {
    for (const auto& j : doc_.scenario().jobs)
        if (qs(j.id) == job && !j.nodes.empty()) return j.nodes;
    // A job the scenario does not place (one that asks for a number of GPUs, or one added for the run only):
    // where the run placed it, from its metadata.
    const auto* rp = run_.replay();
    if (!rp) return {};
    const auto& placed = rp->info().meta.job_nodes;
    auto it = placed.find(job.toStdString());
    return it == placed.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> JobsPanel::busiestLinks(const QString& job, const model::Frame& f, std::size_t n) const {
    const auto nodes = nodesOf(job);
    const std::set<std::string> mine(nodes.begin(), nodes.end());
    auto onJob = [&](const std::string& end) { return mine.count(end.substr(0, end.find('/'))) > 0; };
    std::vector<std::string> out;  // the frame's links are busiest first
    for (const auto& l : f.links) {
        const auto sep = l.id.find("<->");
        if (sep == std::string::npos || l.utilization <= 0) continue;
        if (onJob(l.id.substr(0, sep)) || onJob(l.id.substr(sep + 3))) out.push_back(l.id);
        if (out.size() >= n) break;
    }
    return out;
}

QString JobsPanel::collectivesOf(const std::string& job, const model::JobFrame* f) const {
    if (f && !f->collectives.empty()) return qs(f->collectives);
    // A replayed frame has no text fields: the run's metadata keeps how the collectives last ran.
    const auto* rp = run_.replay();
    if (!rp) return {};
    const auto& kept = rp->info().meta.job_collectives;
    const auto k = kept.find(job);
    return k == kept.end() ? QString() : qs(k->second);
}

void JobsPanel::refresh() {
    stale_ = false;
    // The scenario's jobs, then any the run recorded besides (a run's extra jobs, an imported job trace).
    struct Row {
        std::string id, kind;
        int nodes = -1;
        double start = 0, end = -1, util = NAN;
    };
    std::vector<Row> rows;
    std::set<std::string> known;
    const auto* rp = run_.replay();
    for (const auto& j : doc_.scenario().jobs) {
        const int nodes = !j.nodes.empty() ? static_cast<int>(j.nodes.size()) : rp ? static_cast<int>(nodesOf(qs(j.id)).size()) : -1;
        rows.push_back({j.id, j.kind, nodes > 0 ? nodes : -1, j.start_s, j.end_s ? *j.end_s : -1.0, j.utilization});
        known.insert(j.id);
    }
    std::map<std::string, const model::JobFrame*> now;
    if (rp) {
        for (const auto& j : run_.frame().jobs) now[j.id] = &j;
        for (const std::string& e : rp->entities())
            if (!known.count(e) && (rp->series(e, "step_time_s") || rp->series(e, "tokens_per_s"))) {
                // A job the run added (--jobs, the Run dialog) or imported: what it recorded says what it is.
                const int nodes = static_cast<int>(nodesOf(qs(e)).size());
                rows.push_back({e, rp->series(e, "tokens_per_s") ? "inference" : "training", nodes > 0 ? nodes : -1, 0, -1, NAN});
            }
    }
    const double t = run_.time();
    table_->setSortingEnabled(false);
    table_->setRowCount(static_cast<int>(rows.size()));
    bool network = false;
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const Row& row = rows[static_cast<std::size_t>(r)];
        const auto it = now.find(row.id);
        const model::JobFrame* f = it == now.end() ? nullptr : it->second;
        network = network || (f && std::isfinite(f->step_time_s) && f->step_time_s > 0);
        QString state = tr("planned");
        if (f) state = f->stalled ? tr("stalled") : (f->running || f->step_time_s > 0 ? tr("running") : tr("idle"));
        else if (t >= row.start && (row.end < 0 || t < row.end)) state = rp ? tr("running") : tr("from %1 s").arg(row.start);
        // The step bar's shares (UserRole) and text, read from the optional in one place.
        QVariant bar;
        QString bar_text = QStringLiteral("–");
        if (const std::optional<StepShares> shares = f && !(f->tokens_per_s > 0) ? stepShares(*f) : std::nullopt) {
            bar = QVariantList{shares->compute, shares->comm, shares->bubble};
            bar_text = tr("compute %1, communication %2, bubble %3").arg(pct(shares->compute), pct(shares->comm), pct(shares->bubble));
        }
        const QString collectives = collectivesOf(row.id, f);
        const QString cells[] = {
            qs(row.id),
            qs(row.kind),
            row.nodes >= 0 ? QString::number(row.nodes) : QStringLiteral("–"),
            state,
            f && std::isfinite(f->step_time_s) && f->step_time_s > 0 ? QString::number(f->step_time_s, 'f', 3) : QStringLiteral("–"),
            bar_text,
            f ? pct(f->mfu) : QStringLiteral("–"),
            f ? pct(f->comm_share) : QStringLiteral("–"),
            f && std::isfinite(f->utilization) ? pct(f->utilization) : pct(row.util),
            f ? details(*f, collectives) : QStringLiteral("–")};
        for (int c = 0; c < 10; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == kStepColumn && bar.isValid()) {
                item->setData(Qt::UserRole, bar);
                item->setToolTip(cells[c]);
            }
            if (c == kDetailsColumn && !collectives.isEmpty())
                item->setToolTip(tr("Collectives, as NCCL runs them (one run each, every group at once):\n%1").arg(collectives));
            if (c == 3 && f && f->stalled) item->setForeground(QColor(200, 30, 30));
            table_->setItem(r, c, item);
        }
    }
    note_->setText(
        rows.empty() ? tr("The scenario has no jobs.")
        : network    ? tr("Click a job: its nodes light up in 3D and the Charts dock shows its step time, MFU and communication share over "
                             "time. The bar: computing (green), waiting on exposed communication (orange), idle in the pipeline's bubble (grey).")
                     : tr("Step time, MFU and communication share come from jobs with a training or inference description, which run on "
                             "the simulated fabric (docs/network.md); these run at their set utilization."));
}

}  // namespace ct::app
