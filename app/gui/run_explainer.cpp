#include "run_explainer.hpp"
#include "qstr.hpp"

#include "notice_bar.hpp"
#include "run_controller.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/run_checks.hpp>

#include <QStringList>

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ct::app {

namespace {
QString at(double t_s) { return qs(model::formatDuration(t_s)); }
}  // namespace

QString describeEvent(const std::string& kind, const std::string& target, const std::optional<double>& value) {
    const QString t = qs(target);
    auto ends = [&](const char* suffix) {
        return kind.size() > std::strlen(suffix) && kind.compare(kind.size() - std::strlen(suffix), std::string::npos, suffix) == 0;
    };
    if (ends("_fail")) return QObject::tr("%1 fails").arg(t);
    if (ends("_restore")) return QObject::tr("%1 is restored").arg(t);
    if (kind == "setpoint_change" && value) return QObject::tr("%1 setpoint %2 °C").arg(t).arg(*value, 0, 'f', 1);
    if (kind == "workload_change" && value) return QObject::tr("%1 workload %2 %").arg(t).arg(100 * *value, 0, 'f', 0);
    return value ? QString("%1 %2 %3").arg(t, qs(kind)).arg(*value) : QString("%1 %2").arg(t, qs(kind));
}

RunExplainer::RunExplainer(const RunController& run, NoticeBar& bar, QObject* parent) : QObject(parent), run_(run), bar_(bar) {
    connect(&run_, &RunController::runChanged, this, [this] {
        whatif_.clear();
        explain();
    });
}

void RunExplainer::describeWhatIf(const std::vector<model::Event>& failures) {
    const auto* rp = run_.replay();
    if (!rp) return;
    QStringList asked, also;
    for (const auto& f : failures) asked << tr("%1 at %2").arg(describeEvent(f.kind, f.target, f.value), at(f.time_s));
    // The engine records every event it applied as an "event" entry: the ones not asked for are the scenario's.
    for (const auto& e : rp->events()) {
        if (e.kind != "event") continue;
        const double t = e.t_s - rp->startS();
        const std::string kind = e.message.substr(0, e.message.find(' '));
        std::optional<double> value;
        if (const auto sp = e.message.find(' '); sp != std::string::npos) value = std::atof(e.message.c_str() + sp + 1);
        bool mine = false;
        for (const auto& f : failures) mine = mine || (f.target == e.target && f.kind == kind && std::abs(f.time_s - t) < 1e-6);
        if (!mine) also << tr("%1 at %2").arg(describeEvent(kind, e.target, value), at(t));
    }
    whatif_ = tr("What-if: %1.").arg(asked.join("; "));
    whatif_ += also.isEmpty()
                   ? tr(" The run contains no other event.")
                   : tr(" This run also contains the scenario's own events: %1 (the baseline has them too).").arg(also.join("; "));
    explain();
}

void RunExplainer::explain() {
    const auto* rp = run_.replay();
    if (!rp) {
        bar_.clear();
        return;
    }
    QStringList lines;
    NoticeBar::Level level = NoticeBar::Level::Info;
    for (const auto& f : runs::checkRun(*rp)) {
        lines << tr("%1 (at %2)").arg(qs(f.text), at(f.t_s));
        if (f.level == runs::RunFinding::Level::Error) level = NoticeBar::Level::Error;
        else if (level != NoticeBar::Level::Error) level = NoticeBar::Level::Warning;
    }
    if (!whatif_.isEmpty()) lines << whatif_;
    bar_.setNotice(level, lines.join("\n"));
}

}  // namespace ct::app
