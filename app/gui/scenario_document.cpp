#include "scenario_document.hpp"

#include <clustertwin/model/validate.hpp>

namespace ct::app {

bool ScenarioDocument::load(const QString& path, model::Diagnostics& problems, QString& error_text) {
    problems.clear();
    error_text.clear();
    try {
        model::ValidationReport rep = model::loadAndValidate(path.toStdString());
        if (model::hasErrors(rep.diagnostics)) {
            problems = std::move(rep.diagnostics);
            error_text = tr("%1 has %2 error(s).").arg(path).arg(model::countErrors(problems));
            return false;
        }
        scenario_ = std::move(rep.scenario);
        catalog_ = std::move(rep.catalog);
        warnings_ = std::move(rep.diagnostics);
        path_ = path;
    } catch (const std::exception& e) {  // unreadable file, syntax error, too large
        error_text = QString::fromStdString(e.what());
        return false;
    }
    emit changed();
    return true;
}

EntityRef ScenarioDocument::refOf(const QString& qid) const {
    const std::string id = qid.toStdString();
    if (id.empty()) return {};
    if (id == scenario_.id) return {"scenario", qid};
    for (const auto& h : scenario_.halls) {
        if (h.id == id) return {"hall", qid};
        for (const auto& row : h.rows) {
            if (row.id == id) return {"row", qid};
            for (const auto& r : row.racks) {
                if (r.id == id) return {"rack", qid};
                for (const auto& p : r.pdus)
                    if (p.id == id) return {"rack_pdu", qid};
                for (const auto& n : r.nodes) {
                    if (n.id == id) return {"node", qid};
                    if (id.rfind(n.id + "/gpu", 0) == 0) return {"gpu", qid};
                }
            }
        }
        for (const auto& u : h.cooling_units)
            if (u.id == id) return {"cooling_unit", qid};
        for (const auto& u : h.cdus)
            if (u.id == id) return {"cdu", qid};
    }
    for (const auto& f : scenario_.power.feeds)
        if (f.id == id) return {"utility_feed", qid};
    for (const auto& u : scenario_.power.ups)
        if (u.id == id) return {"ups", qid};
    for (const auto& p : scenario_.power.pdus)
        if (p.id == id) return {"pdu", qid};
    for (const auto& j : scenario_.jobs)
        if (j.id == id) return {"job", qid};
    return {};
}

} // namespace ct::app
