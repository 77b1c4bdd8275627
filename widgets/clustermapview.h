#pragma once
// The cluster as boxes of GPU cells grouped by switch; every cell is coloured by the job(s) holding it.
#include <QWidget>
#include <functional>
#include <vector>

#include "model/clusterspec.h"
#include "sim/decisionlog.h"

namespace ss {

class ClusterMapView : public QWidget {
    Q_OBJECT
public:
    explicit ClusterMapView(QWidget* parent = nullptr);

    /// The cluster to draw (not owned; must outlive the view or be replaced). nullptr clears the view.
    void setCluster(const ss::ClusterSpec* cluster);
    /// Holders of each global GPU (Replayer::holders()). Size may be shorter than totalGpus (rest = free).
    void setOccupancy(const std::vector<std::vector<ss::Replayer::Holder>>& holdersPerGpu);
    /// Optional affinity overlay: one score per machine (NaN = no score); empty turns the overlay off.
    /// Scores are normalised to their own min..max for the colour.
    void setMachineScores(std::vector<float> scores);
    /// Names jobs in tooltips (e.g. "job 17 (resnet50)"); default "job <index>".
    void setJobLabeler(std::function<QString(int)> labeler);

    int selectedJob() const { return m_selectedJob; }
    /// Widget-coordinate rectangle of global GPU g (empty if not laid out). For tests and overlays.
    QRect gpuCellRect(int gpu) const;
    QRect machineRect(int machine) const;
    int gpuAt(const QPoint& pos) const;     ///< -1 when none
    int machineAt(const QPoint& pos) const; ///< -1 when none

    /// MIME type of a dragged queued job: the job's trace id as UTF-8 text.
    static constexpr const char* kJobMime = "application/x-schedstudio-job";

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public Q_SLOTS:
    void setSelectedJob(int jobIndex);

Q_SIGNALS:
    void jobSelected(int jobIndex);       ///< user clicked a GPU held by this job
    void machineClicked(int machine);     ///< user clicked a machine (any place in its box)
    /// A queued job (kJobMime: its trace id as text) was dragged from the stepper's queue onto a machine: the
    /// what-if "start this job there instead" (the main window forks the run with that placement).
    void jobDropped(const QString& jobId, int machine);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void dragEnterEvent(QDragEnterEvent*) override;
    void dragMoveEvent(QDragMoveEvent*) override;
    void dropEvent(QDropEvent*) override;
    bool event(QEvent* e) override; // tooltips

private:
    struct SwitchBox {
        int sw;
        QRect frame;
        QString label;
    };
    const ss::ClusterSpec* m_cluster = nullptr;
    std::vector<std::vector<ss::Replayer::Holder>> m_holders;
    std::vector<float> m_scores;
    std::function<QString(int)> m_labeler;
    int m_selectedJob = -1;
    // layout cache (recomputed on resize / cluster change)
    int m_cell = 0;
    int m_labelH = 0; // machine name line above the cells (only when cells are big enough)
    int m_cellsPerRow = 8;
    std::vector<QRect> m_machineRects;
    std::vector<SwitchBox> m_switchBoxes;
    std::vector<double> m_machineUtil;
    QSize m_layoutSize;
    QFont smallFont() const;
    void relayout();
    void ensureLayout() const; // lay out lazily: a hidden widget gets no resize event before grab()
    void recomputeUtil();
    QString tooltipFor(const QPoint& pos) const;
};

} // namespace ss
