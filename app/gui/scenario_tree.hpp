#pragma once
#include "entity_ref.hpp"

#include <QTreeWidget>

namespace ct::app {
class ScenarioDocument;

/// The scenario as a tree: halls → rows → racks → nodes → GPUs, cooling, power, jobs, events.
class ScenarioTree : public QTreeWidget {
    Q_OBJECT
public:
    explicit ScenarioTree(const ScenarioDocument& doc, QWidget* parent = nullptr);

    /// Selects the item of `ref` (no signal loop: emits entitySelected only on user changes); without one (a cable,
    /// a job of the run) nothing stays selected. False then.
    bool select(const EntityRef& ref);
    QTreeWidgetItem* itemFor(const EntityRef& ref) const;
    /// The first entity with this id, of any kind (invalid when none).
    EntityRef refFor(const QString& id) const;

    /// Dragged entities travel as their ids, one per line (the Charts dock takes them).
    static constexpr const char* kEntityMime = "application/x-clustertwin-entity";

signals:
    void entitySelected(const ct::app::EntityRef& ref);

protected:
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override;

private:
    void rebuild();
    const ScenarioDocument& doc_;
    bool syncing_ = false;
};

}  // namespace ct::app
