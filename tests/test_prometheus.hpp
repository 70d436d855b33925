#pragma once
// Debian's Prometheus for tests (issue 17): started on a free 127.0.0.1 port with a private data directory and
// the test's configuration, stopped when the object goes. Tests that need it QSKIP when it is not installed
// (scripts/setup installs it).
#include <clustertwin/importers/prometheus_http.hpp>

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>

#include <chrono>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

class TestPrometheus {
public:
    ~TestPrometheus() {
        if (proc_.state() != QProcess::NotRunning) {
            proc_.terminate();
            if (!proc_.waitForFinished(10000)) proc_.kill();
        }
    }
    static bool installed() {
        return !QStandardPaths::findExecutable("prometheus").isEmpty() && !QStandardPaths::findExecutable("promtool").isEmpty();
    }

    /// A port nobody listens on now: the one the kernel gives a socket bound to port 0.
    static int freePort() {
        const int sock = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        int port = 0;
        if (bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
            getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
            port = ntohs(addr.sin_port);
        close(sock);
        return port;
    }

    /// Starts it with `config` (prometheus.yml) written into `dir`, its data in `tsdb`; waits until it answers
    /// a query. Returns "" or why it did not start.
    QString start(const QString& dir, const QByteArray& config, const QString& tsdb) {
        QFile cfg(dir + "/prometheus.yml");
        if (!cfg.open(QIODevice::WriteOnly) || cfg.write(config) != config.size()) return "cannot write " + cfg.fileName();
        cfg.close();
        const int port = freePort();
        proc_.setProcessChannelMode(QProcess::MergedChannels);
        proc_.start(QStandardPaths::findExecutable("prometheus"),
                    {"--config.file=" + cfg.fileName(), "--storage.tsdb.path=" + tsdb, "--storage.tsdb.retention.time=10y",
                     "--web.listen-address=127.0.0.1:" + QString::number(port)});
        if (!proc_.waitForStarted(10000)) return "prometheus did not start";
        url_ = "http://127.0.0.1:" + QString::number(port);
        // Ready when a query is answered (the fetch retries while the server starts).
        ct::importers::PrometheusRange probe;
        probe.url = url_.toStdString();
        probe.queries = {"vector(1)"};
        probe.from_s = probe.to_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        probe.retries = 8;
        std::string body;
        try {
            ct::importers::fetchPrometheusRange(probe, [&](const ct::importers::PrometheusPiece& p, std::size_t, std::size_t) {
                body = p.body;
                return true;
            });
        } catch (const std::exception& e) {
            return QString("prometheus does not answer: ") + e.what() + "\n" + proc_.readAll();
        }
        if (body.find("\"success\"") == std::string::npos) return QString::fromStdString("unexpected answer: " + body);
        return {};
    }
    const QString& url() const { return url_; }

private:
    QProcess proc_;
    QString url_;
};
