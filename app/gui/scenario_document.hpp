#pragma once
// The open scenario with its effective catalog, validation problems, live layout checks and edit history:
// what the app's views observe. Every edit goes through the undo stack as a before/after snapshot, so undo and
// redo give back exactly the scenario they left.
#include "entity_ref.hpp"

#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/layout_checks.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QLockFile;
class QUndoStack;

namespace ct::app {

class ScenarioDocument : public QObject {
    Q_OBJECT
public:
    explicit ScenarioDocument(QObject* parent = nullptr);
    ~ScenarioDocument() override;

    /// Loads and validates `path`. On success (no errors but layout problems, which findings() lists)
    /// replaces the document and emits changed(). On failure keeps the current document and returns false with
    /// `problems` filled (syntax error with line/column, or every validation error and warning). Never throws.
    bool load(const QString& path, model::Diagnostics& problems, QString& error_text);

    const model::Scenario& scenario() const { return scenario_; }
    const model::Catalog& catalog() const { return catalog_; }
    const model::Diagnostics& warnings() const { return warnings_; }
    const QString& path() const { return path_; }
    /// The kind of an entity by its id (racks, nodes, GPUs, rows, units, power, jobs); invalid when unknown.
    EntityRef refOf(const QString& id) const;

    /// Runs an edit (a model/edit.hpp function) on a copy and, when it succeeds, pushes it as one undoable
    /// step and emits edited(). On failure the scenario is unchanged and `error` says why.
    bool apply(const QString& text, const std::function<void(model::Scenario&)>& edit, QString* error = nullptr);
    QUndoStack* undoStack() const { return undo_; }
    bool isModified() const;
    /// Live layout checks of the current scenario (recomputed after every change).
    const std::vector<model::LayoutFinding>& findings() const { return findings_; }

    /// Saves atomically (temporary file, then rename) to `path` ("" = the current path); marks the document
    /// saved and removes its autosave. Returns false with the reason on failure (the old file stays).
    bool save(const QString& path, QString* error = nullptr);
    /// Where this document's autosave goes (per file, under the app's data folder).
    static QString autosavePathFor(const QString& path);
    /// Writes the autosave when there are unsaved edits. Returns whether one was written.
    bool writeAutosave();
    void removeAutosave();
    /// Whether this instance holds the file's autosave (a lock beside it). False while another ClusterTwin has
    /// the same file open: that one autosaves it, this one neither writes, removes nor recovers it.
    bool ownsAutosave() const { return lock_ != nullptr; }
    /// Opens the version of a scenario that a run was computed for (its kept JSON, RunMeta::scenario_json):
    /// `file` when it is there, that version applied as one undoable edit where it differs (left unsaved: the
    /// user saves or undoes it); without the file, a document with no path holding that version. Fails as
    /// load() does, keeping the current document.
    bool loadVersion(const std::string& json, const QString& file, model::Diagnostics& problems, QString& error_text);
    /// Replaces the scenario with an autosave's content as one undoable edit (recovery after a crash).
    bool recoverFrom(const QString& autosave_path, QString* error = nullptr);

signals:
    /// A different scenario was opened.
    void changed();
    /// The same scenario was edited, undone or redone.
    void edited();
    void modifiedChanged(bool modified);

private:
    friend class SnapshotCommand;
    void setScenario(const model::Scenario& s);
    void lockAutosave();
    void recheck();
    model::Scenario scenario_;
    model::Catalog catalog_;
    model::Diagnostics warnings_;
    std::vector<model::LayoutFinding> findings_;
    QString path_;
    QUndoStack* undo_;
    std::unique_ptr<QLockFile> lock_;
};

}  // namespace ct::app
