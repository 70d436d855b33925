#include <clustertwin/model/time.hpp>
#include <clustertwin/render/display.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/video.hpp>
#include <clustertwin/runs/replay.hpp>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace ct::report {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& s) {
    std::string r = "'";
    for (char ch : s) r += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return r + "'";
}

/// The encoder's arguments for a file's extension.
std::string codecFor(const std::string& path) {
    const std::string ext = fs::path(path).extension().string();
    if (ext == ".mp4") return "-c:v libx264 -preset veryfast -crf 22 -pix_fmt yuv420p -movflags +faststart";
    if (ext == ".webm") return "-c:v libvpx-vp9 -b:v 0 -crf 34 -deadline realtime -cpu-used 8 -row-mt 1 -pix_fmt yuv420p";
    throw render::RenderError(path + ": a video is .mp4 (H.264) or .webm (VP9)");
}

/// Frames go to ffmpeg's standard input as raw RGB.
class Encoder {
public:
    Encoder(const std::string& out, int w, int h, int fps, const std::string& codec) {
        const std::string cmd = "ffmpeg -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgb24 -s " + std::to_string(w) + "x" +
                                std::to_string(h) + " -r " + std::to_string(fps) + " -i - " + codec + " " + quoted(out);
        // A dead encoder must be an error we report, not a SIGPIPE that kills us mid-frame.
        std::signal(SIGPIPE, SIG_IGN);
        pipe_ = popen(cmd.c_str(), "w");
        if (!pipe_) throw render::RenderError("cannot start ffmpeg");
    }
    ~Encoder() {
        if (pipe_) pclose(pipe_);
    }
    void write(const std::vector<unsigned char>& rgb) {
        if (std::fwrite(rgb.data(), 1, rgb.size(), pipe_) != rgb.size())
            throw render::RenderError("ffmpeg stopped taking frames (see its message above)");
    }
    void finish() {
        const int status = pclose(pipe_);
        pipe_ = nullptr;
        if (status != 0) throw render::RenderError("ffmpeg failed to encode the video (exit status " + std::to_string(status) + ")");
    }

private:
    FILE* pipe_ = nullptr;
};

/// The frames of a video: the scene at the run's frames (air fields read once per stored field when an overlay
/// needs them), grabbed and sent to the encoder.
class VideoFrames {
public:
    VideoFrames(render::Scene& scene, const runs::TelemetryStore* store, std::int64_t run, const std::optional<runs::RunReplay>& rp,
                Encoder& enc, VideoSummary& sum, const std::function<bool(double)>& progress)
        : scene_(scene), store_(store), run_(run), rp_(rp), enc_(enc), sum_(sum), progress_(progress) {}

    /// A replay: n frames evenly over the run.
    void replay(const VideoOptions& opt) {
        const int n = std::max(2, static_cast<int>(std::lround(opt.fps * opt.seconds)));
        for (int i = 0; i < n; ++i) {
            const double t = rp_->startS() + (rp_->endS() - rp_->startS()) * i / (n - 1);
            scene_.setFrame(frameAt(t));
            scene_.setCaption((opt.title.empty() ? std::string() : opt.title + "  ·  ") +
                              "t = " + model::formatDuration(t - rp_->startS()));
            emit(static_cast<double>(i + 1) / n);
        }
    }

    /// A tour: each step's camera, metric, overlays and selection, then its frames (playing the run when asked).
    void tour(const Tour& tour, int fps) {
        const double total = tour.seconds();
        double shown = 0, t = rp_ ? rp_->startS() : 0;
        for (const TourStep& st : tour.steps) {
            applyStep(st);
            if (rp_ && st.time_s) t = rp_->startS() + *st.time_s;
            const double t0 = t, t1 = rp_ && st.play_to_s ? rp_->startS() + *st.play_to_s : t;
            const int n = std::max(1, static_cast<int>(std::lround(fps * st.seconds)));
            for (int i = 0; i < n; ++i) {
                t = t0 + (t1 - t0) * (n > 1 ? static_cast<double>(i) / (n - 1) : 1.0);
                if (rp_) scene_.setFrame(frameAt(std::min(t, rp_->endS())));
                scene_.setCaption(st.caption + (rp_ && (st.time_s || st.play_to_s) ? "  ·  t = " + model::formatDuration(t - rp_->startS())
                                                                                   : std::string()));
                emit((shown + st.seconds * (i + 1) / n) / total);
            }
            shown += st.seconds;
        }
    }

private:
    void applyStep(const TourStep& st) {
        if (!st.camera.empty()) scene_.setCamera(st.camera);
        if (!st.metric.empty()) scene_.setMetric(st.metric);
        render::Overlays o = scene_.overlays();
        render::applyOverlaySettings(o, st.overlays);
        if (!rp_)  // no air without a run
            for (const render::OverlayInfo& info : render::overlayTable())
                if (info.needs_air) o.*info.flag = false;
        scene_.setOverlays(o);
        scene_.setSelected(st.select);
        scene_.setHighlighted(st.highlight);
        if (!st.focus.empty()) scene_.focus(st.focus);
    }

    model::Frame frameAt(double t) {
        model::Frame f = rp_->frameAt(t + 1e-6);
        const render::Overlays& o = scene_.overlays();
        if (store_ && render::needsAir(o)) {
            double at = -1e300;
            for (double ft : store_->airFieldTimes(run_))
                if (ft <= t + 1e-6) at = ft;
            if (at != field_at_) {
                store_->loadAirFields(run_, t + 1e-6, cached_);  // every hall's
                field_at_ = at;
            }
            f.air = cached_.air;
            f.other_halls_air = cached_.other_halls_air;
        }
        return f;
    }

    void emit(double done) {
        int wi = 0, hi = 0;
        std::vector<unsigned char> rgb = scene_.grabRgb(wi, hi);
        if (wi != sum_.width || hi != sum_.height)
            throw render::RenderError("the offscreen picture is " + std::to_string(wi) + "x" + std::to_string(hi) +
                                      ", not the size asked for");
        enc_.write(rgb);
        ++sum_.frames;
        if (progress_ && !progress_(done)) throw render::RenderError("cancelled");
    }

    render::Scene& scene_;
    const runs::TelemetryStore* store_;
    const std::int64_t run_;
    const std::optional<runs::RunReplay>& rp_;
    Encoder& enc_;
    VideoSummary& sum_;
    const std::function<bool(double)>& progress_;
    double field_at_ = -1e300;  ///< the time of the air fields in cached_
    model::Frame cached_;       ///< its air fields only
};

}  // namespace

VideoSummary writeVideo(const model::Scenario& s, const model::Catalog& c, std::vector<model::FabricLink> links,
                        const runs::TelemetryStore* store, std::int64_t run, const Tour* tour, const std::string& path,
                        const VideoOptions& opt, const std::function<bool(double)>& progress) {
    const std::string codec = codecFor(path);
    if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0)
        throw render::RenderError("no ffmpeg to encode the video with: install Debian's ffmpeg (scripts/setup does)");
    if (opt.fps < 1 || opt.fps > 120) throw render::RenderError("frames per second must be within 1..120");
    const int w = std::max(16, opt.width / 2 * 2), h = std::max(16, opt.height / 2 * 2);
    std::optional<runs::RunReplay> rp;
    if (store) rp.emplace(runs::RunReplay::load(*store, run));
    if (!tour && !rp) throw render::RenderError("a replay video needs a run");
    if (!tour && !(opt.seconds > 0)) throw render::RenderError("the video's length must be > 0 s");

    const render::OffscreenDisplay display;
    render::Scene scene(s, c, std::move(links));
    scene.setShowHint(false);
    scene.setSize(w, h);
    scene.setMetric(rp ? opt.metric : "nameplate_kw");
    scene.setCamera(opt.view);
    const fs::path target(path);
    std::string partial(1, '.');  // hidden beside the target, with its extension (ffmpeg picks the format by it)
    partial.append(target.stem().string()).append(".partial").append(target.extension().string());
    const fs::path tmp = target.parent_path() / partial;
    VideoSummary sum;
    sum.width = w;
    sum.height = h;
    try {
        Encoder enc(tmp.string(), w, h, opt.fps, codec);
        VideoFrames frames(scene, store, run, rp, enc, sum, progress);
        if (tour) frames.tour(*tour, opt.fps);
        else frames.replay(opt);
        enc.finish();
    } catch (...) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw;
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw render::RenderError(path + ": cannot write the video: " + ec.message());
    }
    sum.seconds = static_cast<double>(sum.frames) / opt.fps;
    return sum;
}

}  // namespace ct::report
