#include "run_binding.hpp"

#include <clustertwin/model/data_paths.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/recorder.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include <unordered_set>

namespace ct::app {

RunMatch matchRun(const runs::RunReplay& run, const model::Scenario& s, const model::Catalog& c, const std::string& scenario_hash) {
    RunMatch m;
    const auto& info = run.info();
    m.run_scenario = QString::fromStdString(info.scenario_id);
    m.scenario_file = QString::fromStdString(info.meta.scenario_file);
    m.has_version = !info.meta.scenario_json.empty();
    const std::string& recorded_hash = info.meta.scenario_hash;
    // Telemetry mapped onto a scenario on import carries that scenario's ids: it belongs to it.
    if (!info.meta.mapped_onto.empty() && m.run_scenario.isEmpty()) m.run_scenario = QString::fromStdString(info.meta.mapped_onto);
    std::unordered_set<std::string> ids;
    for (const auto& e : runs::scenarioEntities(s, c)) ids.insert(e.id);
    for (const auto& e : run.entities()) {
        ++m.entities;
        if (ids.count(e)) ++m.matched;
    }
    if (!m.run_scenario.isEmpty() && m.run_scenario.toStdString() != s.id) {
        m.kind = RunMatch::Kind::OtherScenario;
    } else if (info.kind != "simulated") {
        m.kind = m.matched == 0 && m.entities > 0 ? RunMatch::Kind::Unmatched : RunMatch::Kind::Imported;
    } else {
        m.kind = !recorded_hash.empty() && recorded_hash != scenario_hash ? RunMatch::Kind::Edited : RunMatch::Kind::Same;
    }
    return m;
}

std::map<std::string, std::string> hostAliases(const model::Scenario& s) {
    std::map<std::string, std::string> out;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks)
                for (const auto& n : rack.nodes)
                    if (!n.hostname.empty() && n.hostname != n.id) out.emplace(n.hostname, n.id);
    return out;
}

QString RunMatch::describe(const QString& scenario_id) const {
    switch (kind) {
        case Kind::Same:
            return {};
        case Kind::Edited:
            return QObject::tr(
                       "This run was computed for a different version of scenario %1 (it has been edited since): values are shown by "
                       "entity id, and what was added since has none.")
                .arg(scenario_id);
        case Kind::Imported:
            return matched == entities ? QString()
                                       : QObject::tr("%1 of the %2 entities in this telemetry are not in scenario %3 and are not drawn.")
                                             .arg(entities - matched)
                                             .arg(entities)
                                             .arg(scenario_id);
        case Kind::OtherScenario:
            return QObject::tr("This run was recorded for scenario %1, not for the open scenario %2: its values are not shown on it.")
                .arg(run_scenario, scenario_id);
        case Kind::Unmatched:
            return QObject::tr(
                       "None of the %1 entities in this telemetry is in scenario %2: open the scenario it was imported with, or "
                       "import it again with --scenario.")
                .arg(entities)
                .arg(scenario_id);
    }
    return {};
}

bool isShippedSample(const QString& path) {
    if (path.isEmpty()) return false;
    const QString dir = QFileInfo(QString::fromStdString(model::resourceDir())).canonicalFilePath();
    const QString file = QFileInfo(path).canonicalFilePath();
    return !dir.isEmpty() && !file.isEmpty() && file.startsWith(dir + "/");
}

}  // namespace ct::app
