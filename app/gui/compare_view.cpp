#include "compare_view.hpp"
#include "qstr.hpp"

#include "run_controller.hpp"
#include "scenario_document.hpp"

#include <clustertwin/model/scenario_diff.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include "table_util.hpp"
#include "view3d.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <set>
#include <tuple>

namespace ct::app {

namespace {
QString num(double v, int d = 1) { return std::isfinite(v) ? QString::number(v, 'f', d) : QStringLiteral("–"); }
QString when(double s) { return s < 0 ? QObject::tr("never") : qs(model::formatDuration(s)); }
}  // namespace

CompareView::CompareView(const ScenarioDocument& doc, const RunController& run, QWidget* parent) : QWidget(parent), doc_(doc), run_(run) {
    setObjectName("compareView");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    auto* vsplit = new QSplitter(Qt::Vertical, this);
    auto* hsplit = new QSplitter(Qt::Horizontal, vsplit);
    auto side = [&](QLabel*& title, View3D*& view, const QString& text) {
        auto* w = new QWidget(hsplit);
        auto* v = new QVBoxLayout(w);
        v->setContentsMargins(0, 0, 0, 0);
        title = new QLabel(text, w);
        title->setStyleSheet("font-weight: bold; padding: 2px 6px;");
        view = new View3D(doc, w);
        v->addWidget(title);
        v->addWidget(view, 1);
    };
    side(left_title_, left_, tr("Baseline"));
    side(right_title_, right_, tr("What-if"));
    // Two equal halves, however wide each view's own size hint.
    hsplit->setStretchFactor(0, 1);
    hsplit->setStretchFactor(1, 1);
    hsplit->setSizes({1000, 1000});
    auto* bottom = new QWidget(vsplit);
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(4, 2, 4, 2);
    summary_ = new QLabel(tr("Run a what-if (Simulation > What-if), or compare the shown run with another (Simulation > Compare with "
                             "another run…)."),
                          bottom);
    summary_->setObjectName("compareSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = makeListTable(bottom, {tr("Rack"), tr("Inlet, baseline (°C)"), tr("Inlet, what-if (°C)"), tr("Change (K)"),
                                    tr("Power, baseline (kW)"), tr("Power, what-if (kW)"), tr("Alerts")});
    table_->setObjectName("compareTable");
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The summary scrolls when it is longer than a few lines (a layout change lists what changed): clipped, the
    // last line — the layout's — went unseen.
    auto* scroll = new QScrollArea(bottom);
    scroll->setObjectName("compareSummaryArea");
    scroll->setWidget(summary_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMaximumHeight(7 * summary_->fontMetrics().lineSpacing() + 8);
    scroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    bl->addWidget(scroll);
    bl->addWidget(table_, 1);
    vsplit->setStretchFactor(0, 3);
    vsplit->setStretchFactor(1, 2);
    l->addWidget(vsplit);
    link(left_, right_);
    link(right_, left_);
    for (View3D* v : {left_, right_}) connect(v, &View3D::entitySelected, this, &CompareView::entitySelected);
    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (auto* it = table_->item(row, 0)) emit entitySelected({"rack", it->text()});
    });
    connect(&run_, &RunController::timeChanged, this, [this] {
        if (isVisible()) refresh();
    });
    // An edit makes the open scenario another version than the one a run was computed for.
    connect(&doc, &ScenarioDocument::edited, this, [this] {
        showVersions();
        if (isVisible()) refresh();
    });
}

void CompareView::link(View3D* from, View3D* to) {
    // One camera for both: a turn, zoom or fit in either view moves the other the same way.
    connect(from, &View3D::cameraMoved, this, [this, from, to] {
        if (linking_ || !from->scene() || !to->scene()) return;
        linking_ = true;
        to->scene()->setCameraState(from->scene()->cameraState());
        to->renderNow();
        linking_ = false;
    });
}

void CompareView::setBaseline(std::shared_ptr<const runs::RunReplay> baseline) {
    baseline_ = std::move(baseline);
    const auto* what = run_.replay();
    if (baseline_ && what) {
        sum_ = compareRuns(*baseline_, *what);
        // The what-if's own events: those of its run that its baseline does not have too (the scenario's own
        // timeline, a scheduled failure say, is in both and is no difference).
        std::set<std::tuple<long long, std::string, std::string>> in_base;
        auto key = [](const runs::StoredEvent& e, double t0) { return std::tuple{std::llround(1000 * (e.t_s - t0)), e.target, e.message}; };
        for (const auto& e : baseline_->events())
            if (e.kind == "event") in_base.insert(key(e, baseline_->startS()));
        QStringList added;
        for (const auto& e : what->events())
            if (e.kind == "event" && !in_base.count(key(e, what->startS())))
                added << tr("%1 %2 at %3").arg(qs(e.message), qs(e.target), when(e.t_s - what->startS()));
        QString text =
            tr("<b>Largest rise:</b> %1 %2 K at %3 · <b>racks above %4 °C at the end:</b> %5 of %6 (baseline %7) · "
               "<b>first rack above %4 °C:</b> %8 (baseline: %9)")
                .arg(qs(sum_.largest_rack.empty() ? "–" : sum_.largest_rack),
                     (sum_.largest_rise_k >= 0 ? "+" : "") + num(sum_.largest_rise_k), when(sum_.largest_at_s), num(sum_.limit_c, 0))
                .arg(sum_.over_what)
                .arg(sum_.racks)
                .arg(sum_.over_base)
                .arg(sum_.first_over_what_s < 0 ? tr("never")
                                                : tr("%1 after %2").arg(qs(sum_.first_over_rack), when(sum_.first_over_what_s)),
                     when(sum_.first_over_base_s));
        // What it changed: its own events, else what its metadata says it changed (a sweep's setting), else
        // nothing is known: two runs the user chose, named as they are.
        QStringList changes;
        for (const auto& c : what->info().meta.whatif_changes) changes << qs(c);
        if (!added.isEmpty()) {
            text += "<br>" + tr("The what-if's events: %1").arg(added.join(" · "));
            right_title_->setText(tr("What-if: %1").arg(added.join(", ")));
            left_title_->setText(tr("Baseline: without them"));
        } else if (!changes.isEmpty()) {
            text += "<br>" + tr("What it changes: %1").arg(changes.join(" · "));
            right_title_->setText(tr("What-if: %1").arg(changes.join(", ")));
            left_title_->setText(tr("Baseline: without it"));
        } else {
            text += "<br>" + tr("The shown run adds no events to run %1's.").arg(baseline_->info().id);
            right_title_->setText(tr("Shown: %1").arg(qs(what->info().name)));
            left_title_->setText(tr("Compared with run %1: %2").arg(baseline_->info().id).arg(qs(baseline_->info().name)));
        }
        // Two versions of the scenario (before and after a layout change, say): what changed, from the compared
        // run's version to the shown one's.
        const auto& mb = baseline_->info().meta;
        const auto& mw = what->info().meta;
        if (!mb.scenario_json.empty() && !mw.scenario_json.empty() && mb.scenario_hash != mw.scenario_hash) {
            QStringList layout;
            try {
                for (const auto& c : model::scenarioChanges(model::parseScenario(mb.scenario_json).scenario,
                                                            model::parseScenario(mw.scenario_json).scenario))
                    layout << qs(c).toHtmlEscaped();
            } catch (const std::exception& e) {
                layout << tr("(a version could not be read: %1)").arg(qs(e.what()).toHtmlEscaped());
            }
            text += "<br>" + (layout.isEmpty() ? tr("The runs are of two versions of the scenario; its layout is the same.")
                                               : tr("<b>Layout changed</b> from run %1's version to the shown run's: %2")
                                                     .arg(baseline_->info().id)
                                                     .arg(layout.join(" · ")));
        }
        // The columns name the two runs as the titles do.
        const bool whatif = !added.isEmpty() || !changes.isEmpty();
        const QString base = whatif ? tr("baseline") : tr("run %1").arg(baseline_->info().id), shown = whatif ? tr("what-if") : tr("shown");
        table_->setHorizontalHeaderLabels({tr("Rack"), tr("Inlet, %1 (°C)").arg(base), tr("Inlet, %1 (°C)").arg(shown), tr("Change (K)"),
                                           tr("Power, %1 (kW)").arg(base), tr("Power, %1 (kW)").arg(shown), tr("Alerts")});
        summary_->setText(text);
    } else {
        sum_ = {};
        summary_->setText(
            tr("Run a what-if (Simulation > What-if), or compare the shown run with another (Simulation > Compare with "
               "another run…)."));
        table_->setRowCount(0);
        left_->clearFrame();
        right_->clearFrame();
    }
    showVersions();
    if (isVisible()) refresh();
}

void CompareView::showVersions() {
    const std::string open = model::scenarioHash(doc_.scenario());
    auto versionOf = [&](const runs::RunReplay* r) -> std::shared_ptr<const model::ValidationReport> {
        if (!r || r->info().meta.scenario_json.empty() || r->info().meta.scenario_hash == open) return nullptr;
        try {
            return std::make_shared<const model::ValidationReport>(
                model::parseAndValidate(r->info().meta.scenario_json, "run " + std::to_string(r->info().id)));
        } catch (const std::exception&) {
            return nullptr;  // a kept scenario that cannot be read: the open one (the summary says so)
        }
    };
    left_->setVersion(baseline_ ? versionOf(baseline_.get()) : nullptr);
    right_->setVersion(baseline_ ? versionOf(run_.replay()) : nullptr);
    const QString own = tr(" (its own version)");
    for (auto [view, title] : {std::pair{left_, left_title_}, std::pair{right_, right_title_}}) {
        QString text = title->text();
        if (text.endsWith(own)) text.chop(own.size());
        title->setText(view->showsVersion() ? text + own : text);
    }
}

void CompareView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    refresh();
}

void CompareView::refresh() {
    const auto* what = run_.replay();
    if (!baseline_ || !what) return;
    const double t = run_.time();
    for (View3D* v : {left_, right_})
        if (v->scene()) v->scene()->setMetric("inlet_c");
    left_->setFrame(baseline_->frameAt(baseline_->startS() + t + 1e-6));
    right_->setFrame(run_.frame());
    const auto rows = rackDiffs(*baseline_, *what, t);
    table_->setSortingEnabled(false);
    table_->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const RackDiff& d = rows[static_cast<std::size_t>(r)];
        const QString cells[] = {
            qs(d.rack),           num(d.base_inlet_c),  num(d.what_inlet_c),      (d.delta_k > 0 ? "+" : "") + num(d.delta_k),
            num(d.base_power_kw), num(d.what_power_kw), QString::number(d.alerts)};
        for (int c = 0; c < 7; ++c) {
            auto* it = new QTableWidgetItem(cells[c]);
            if (c > 0) it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == 3 && d.delta_k > 1) it->setBackground(QColor(255, 160, 60, d.delta_k > 5 ? 200 : 110));
            if (c == 2 && d.what_inlet_c > sum_.limit_c) it->setForeground(QColor(200, 30, 30));
            table_->setItem(r, c, it);
        }
    }
}

}  // namespace ct::app
