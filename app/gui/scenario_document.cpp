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

} // namespace ct::app
