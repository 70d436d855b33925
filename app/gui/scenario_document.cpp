#include "scenario_document.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QUndoStack>

namespace ct::app {

/// One edit: the scenario before and after. The first redo() is the edit itself, already applied.
class SnapshotCommand : public QUndoCommand {
public:
    SnapshotCommand(ScenarioDocument& doc, model::Scenario before, model::Scenario after, const QString& text)
        : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
    void redo() override { doc_.setScenario(after_); }
    void undo() override { doc_.setScenario(before_); }

private:
    ScenarioDocument& doc_;
    model::Scenario before_, after_;
};

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
    connect(undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

ScenarioDocument::~ScenarioDocument() = default;

bool ScenarioDocument::load(const QString& path, model::Diagnostics& problems, QString& error_text) {
    problems.clear();
    error_text.clear();
    try {
        model::ValidationReport rep = model::loadAndValidate(path.toStdString());
        // Layout problems (overlaps, a rack outside the hall, overloaded breakers) open: they are a plan in
        // progress and the checks dock lists them. Anything else keeps the file closed.
        bool broken = false;
        for (const auto& d : rep.diagnostics) broken = broken || (d.severity == model::Severity::Error && !model::isLayoutProblem(d));
        if (broken) {
            problems = std::move(rep.diagnostics);
            error_text = tr("%1 has %2 error(s).").arg(path).arg(model::countErrors(problems));
            return false;
        }
        scenario_ = std::move(rep.scenario);
        catalog_ = std::move(rep.catalog);
        warnings_.clear();
        for (auto& d : rep.diagnostics)
            if (d.severity != model::Severity::Error) warnings_.push_back(std::move(d));
        path_ = path;
        lockAutosave();
    } catch (const std::exception& e) {  // unreadable file, syntax error, too large
        error_text = QString::fromStdString(e.what());
        return false;
    }
    undo_->clear();
    recheck();
    emit changed();
    return true;
}

void ScenarioDocument::recheck() { findings_ = model::checkLayout(scenario_, catalog_); }

void ScenarioDocument::setScenario(const model::Scenario& s) {
    scenario_ = s;
    recheck();
    emit edited();
}

bool ScenarioDocument::apply(const QString& text, const std::function<void(model::Scenario&)>& edit, QString* error) {
    model::Scenario after = scenario_;
    try {
        edit(after);
        after.linkParents();
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    if (after == scenario_) return true;  // nothing changed: no empty undo step
    undo_->push(new SnapshotCommand(*this, scenario_, std::move(after), text));
    return true;
}

bool ScenarioDocument::isModified() const { return !undo_->isClean(); }

bool ScenarioDocument::save(const QString& path, QString* error) {
    const QString target = path.isEmpty() ? path_ : path;
    if (target.isEmpty()) {
        if (error) *error = tr("The scenario has no file yet: choose where to save it.");
        return false;
    }
    try {
        model::saveScenarioFile(scenario_, target.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    removeAutosave();
    if (target != path_) {
        path_ = target;
        lockAutosave();
    }
    undo_->setClean();
    return true;
}

QString ScenarioDocument::autosavePathFor(const QString& path) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave";
    const QByteArray key = QCryptographicHash::hash(QFileInfo(path).absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return dir + "/" + QFileInfo(path).completeBaseName() + "-" + QString::fromLatin1(key) + ".json";
}

void ScenarioDocument::lockAutosave() {
    lock_.reset();
    if (path_.isEmpty()) return;
    const QString file = autosavePathFor(path_);
    QDir().mkpath(QFileInfo(file).absolutePath());
    auto lock = std::make_unique<QLockFile>(file + ".lock");
    lock->setStaleLockTime(0);  // held for as long as the file is open; stale only when its process is gone
    if (lock->tryLock(0)) lock_ = std::move(lock);
}

bool ScenarioDocument::writeAutosave() {
    if (!isModified() || path_.isEmpty() || !ownsAutosave()) return false;
    const QString file = autosavePathFor(path_);
    QDir().mkpath(QFileInfo(file).absolutePath());
    try {
        model::writeFileAtomically(file.toStdString(), model::scenarioToJson(scenario_));
    } catch (const std::exception&) {
        return false;  // an autosave that cannot be written must not disturb the user's work
    }
    return true;
}

void ScenarioDocument::removeAutosave() {
    if (!path_.isEmpty() && ownsAutosave()) QFile::remove(autosavePathFor(path_));
}

bool ScenarioDocument::loadVersion(const std::string& json, const QString& file, model::Diagnostics& problems, QString& error_text) {
    problems.clear();
    error_text.clear();
    model::ValidationReport rep;
    try {
        rep = model::parseAndValidate(json, "the run's scenario");
    } catch (const std::exception& e) {
        error_text = QString::fromStdString(e.what());
        return false;
    }
    for (const auto& d : rep.diagnostics)
        if (d.severity == model::Severity::Error && !model::isLayoutProblem(d)) {
            problems = std::move(rep.diagnostics);
            error_text = tr("The scenario this run was computed for has %1 error(s).").arg(model::countErrors(problems));
            return false;
        }
    // An edit carries the scenario, not the catalog it overrides: a version with other catalog entries opens
    // on its own.
    bool on_file = false;
    try {
        on_file =
            QFileInfo(file).isFile() && model::loadScenarioFile(file.toStdString()).scenario.catalog_json == rep.scenario.catalog_json;
    } catch (const std::exception&) {  // unreadable now: the version opens on its own
    }
    if (on_file) {
        if (!load(file, problems, error_text)) return false;
        if (model::scenarioHash(scenario_) == model::scenarioHash(rep.scenario)) return true;
        return apply(
            tr("The version the run was computed for"), [&](model::Scenario& s) { s = rep.scenario; }, &error_text);
    }
    scenario_ = std::move(rep.scenario);
    catalog_ = std::move(rep.catalog);
    warnings_.clear();
    path_.clear();
    lock_.reset();
    undo_->clear();
    recheck();
    emit changed();
    return true;
}

bool ScenarioDocument::recoverFrom(const QString& autosave_path, QString* error) {
    try {
        const model::LoadResult lr = model::loadScenarioFile(autosave_path.toStdString());
        return apply(
            tr("Recover autosave"), [&](model::Scenario& s) { s = lr.scenario; }, error);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
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
        for (const auto& c : h.containments)
            if (c.id == id) return {"containment", qid};
        for (const auto& x : h.sensors)
            if (x.id == id) return {"sensor", qid};
    }
    for (const auto& f : scenario_.power.feeds)
        if (f.id == id) return {"utility_feed", qid};
    for (const auto& t : scenario_.power.transformers)
        if (t.id == id) return {"transformer", qid};
    for (const auto& u : scenario_.power.ups)
        if (u.id == id) return {"ups", qid};
    for (const auto& l : scenario_.plant.loops)
        if (l.id == id) return {"water_loop", qid};
    for (const auto& p : scenario_.power.pdus)
        if (p.id == id) return {"pdu", qid};
    for (const auto& j : scenario_.jobs)
        if (j.id == id) return {"job", qid};
    return {};
}

}  // namespace ct::app
