# SPDX-License-Identifier: MIT
"""Registration: plugin watcher mode (GetInfo / NotifyRegistrationStatus),
legacy mode with kubelet appearing late, kubelet restarts measured
(re-registration under a second), and never taking over a live instance's
socket."""
import os
import socket
import time

import dpkube as k
from dpkube import check, log, pb, regpb


def soft_config(tmp, registry=False):
    cfg = {
        "pluginDir": os.path.join(tmp, "dp"),
        "pluginsRegistryDir": os.path.join(tmp, "registry"),
        "engineSocket": os.path.join(tmp, "engine.sock"),
        "sysfsRoot": os.path.join(tmp, "no-sysfs"),
        "metricsAddress": "127.0.0.1:%d" % k.free_port(),
        "healthIntervalMs": 200,
        "soft": {"resourceName": "podverbs.io/soft-rdma", "count": 2},
    }
    os.makedirs(cfg["pluginDir"], exist_ok=True)
    if registry:
        os.makedirs(cfg["pluginsRegistryDir"], exist_ok=True)
    return cfg


def test_watcher():
    tmp = k.make_tmp("watcher")
    procs = []
    try:
        cfg = soft_config(tmp, registry=True)
        plugin = k.Plugin(tmp, cfg)
        procs.append(plugin)
        sock = os.path.join(cfg["pluginsRegistryDir"], "podverbs-soft-rdma.sock")
        check(k.wait_until(lambda: os.path.exists(sock), 5),
              "no socket in the registry folder: " + plugin.log())
        check(not os.path.exists(os.path.join(cfg["pluginDir"],
                                              "podverbs-soft-rdma.sock")),
              "legacy socket made in watcher mode")
        # What kubelet's plugin watcher does with a new socket.
        chan, reg = k.reg_stub(sock)
        info = reg.GetInfo(regpb.InfoRequest(), timeout=5)
        check(info.type == "DevicePlugin", "type %r" % info.type)
        check(info.name == "podverbs.io/soft-rdma", "name %r" % info.name)
        check(info.endpoint == sock, "endpoint %r" % info.endpoint)
        check(list(info.supported_versions) == ["v1beta1"], "versions")
        m = plugin.metrics()
        pool = (("pool", "podverbs.io/soft-rdma"),)
        check(m[("podverbs_dp_registered", pool)] == 0, "registered before notify")
        reg.NotifyRegistrationStatus(
            regpb.RegistrationStatus(plugin_registered=True), timeout=5)
        m = plugin.metrics()
        check(m[("podverbs_dp_registered", pool)] == 1, "registered after notify")
        check(m[("podverbs_dp_registrations_total", pool)] == 1, "count")
        # The device manager then dials the endpoint.
        w = k.Watch(info.endpoint)
        got = w.wait_for(lambda m: len(m) == 2, 5)
        check(got and all(v[0] == "Healthy" or v[0] == "Unhealthy"
                          for v in got.values()), "list %s" % got)
        w.close()
        reg.NotifyRegistrationStatus(
            regpb.RegistrationStatus(plugin_registered=False,
                                     error="resource name taken"), timeout=5)
        m = plugin.metrics()
        check(m[("podverbs_dp_registered", pool)] == 0, "refused -> 0")
        check(m[("podverbs_dp_registration_failures_total", pool)] == 1, "failures")
        check("resource name taken" in plugin.log(), "refusal logged")
        chan.close()
        # Kubelet's restart or a cleanup removes the registry socket: it is
        # served again at once for the plugin watcher to find.
        t0 = time.monotonic()
        os.unlink(sock)
        check(k.wait_until(lambda: os.path.exists(sock), 2),
              "registry socket not recreated: " + plugin.log())
        lat = time.monotonic() - t0
        chan, reg = k.reg_stub(sock)
        info = reg.GetInfo(regpb.InfoRequest(), timeout=5)
        check(info.endpoint == sock, "GetInfo after recreation")
        chan.close()
        log("registry socket recreated after %.3f s" % lat)
        check(lat < 1.0, "recreation took %.3f s" % lat)
        check(plugin.stop() == 0, "exit code")
        check(not os.path.exists(sock), "registry socket left behind")
    finally:
        k.cleanup(tmp, procs)


def test_legacy_restart():
    tmp = k.make_tmp("restart")
    procs = []
    try:
        cfg = soft_config(tmp)
        ksock = os.path.join(cfg["pluginDir"], "kubelet.sock")
        plugin = k.Plugin(tmp, cfg)
        procs.append(plugin)
        sock = os.path.join(cfg["pluginDir"], "podverbs-soft-rdma.sock")
        check(k.wait_until(lambda: os.path.exists(sock), 5), "plugin socket")
        time.sleep(0.3)
        # Kubelet appears after the plugin.
        t0 = time.monotonic()
        kubelet = k.Kubelet(ksock).start()
        regs = kubelet.wait_registrations(1, 5)
        check(regs, "no registration after kubelet appeared: " + plugin.log())
        log("late kubelet: registered after %.3f s" % (regs[0][0] - t0))

        worst = 0.0
        for i in range(5):
            w = k.Watch(sock)
            check(w.wait_for(lambda m: len(m) == 2, 5), "list before restart")
            t0 = time.monotonic()
            kubelet = k.restart_kubelet(kubelet, cfg["pluginDir"])
            regs = kubelet.wait_registrations(1, 5)
            check(regs, "restart %d: no re-registration: %s" % (i, plugin.log()))
            lat = regs[0][0] - t0
            worst = max(worst, lat)
            log("restart %d: re-registered after %.3f s" % (i, lat))
            check(lat < 1.0, "re-registration took %.3f s" % lat)
            # The old stream ended; the recreated socket serves a new one.
            w.close()
            w2 = k.Watch(os.path.join(cfg["pluginDir"], regs[0][1].endpoint))
            check(w2.wait_for(lambda m: len(m) == 2, 5),
                  "list after restart %d" % i)
            w2.close()
            time.sleep(0.2)
        log("re-registration worst of 5 kubelet restarts: %.3f s" % worst)
        m = plugin.metrics()
        check(m[("podverbs_dp_registrations_total",
                 (("pool", "podverbs.io/soft-rdma"),))] == 6, \
              "6 registrations: %s" % plugin.log())
        kubelet.stop()
        check(plugin.stop() == 0, "exit code")
    finally:
        k.cleanup(tmp, procs)


def test_live_instance():
    tmp = k.make_tmp("live")
    procs = []
    try:
        cfg = soft_config(tmp)
        sock = os.path.join(cfg["pluginDir"], "podverbs-soft-rdma.sock")
        # A stale socket (nobody listening) is replaced.
        s = socket.socket(socket.AF_UNIX)
        s.bind(sock)
        s.close()
        first = k.Plugin(tmp, cfg, "first")
        procs.append(first)
        check(k.wait_until(lambda: k.Watch(sock).wait_for(lambda m: True, 1), 5),
              "first instance not serving over a stale socket: " + first.log())
        ino = os.stat(sock).st_ino
        # A second instance must not take a live socket.
        cfg2 = dict(cfg, metricsAddress="127.0.0.1:%d" % k.free_port())
        second = k.Plugin(tmp, cfg2, "second")
        procs.append(second)
        rc = second.p.wait(10)
        check(rc == 3, "second instance exit code %s" % rc)
        check("in use by another live instance" in second.log(),
              "message: " + second.log())
        check(os.stat(sock).st_ino == ino, "live socket was replaced")
        w = k.Watch(sock)
        check(w.wait_for(lambda m: len(m) == 2, 5), "first still serves")
        w.close()
        log("second instance refused with exit 3; first's socket intact")

        # Someone else's live socket takes the name (atomic rename over
        # ours): the first instance must neither replace nor unlink it,
        # not even when it exits.
        other = socket.socket(socket.AF_UNIX)
        tmpname = os.path.join(cfg["pluginDir"], "other.tmp")
        other.bind(tmpname)
        other.listen(1)
        os.rename(tmpname, sock)
        other_ino = os.stat(sock).st_ino
        check(k.wait_until(lambda: "in use by another live instance"
                           in first.log(), 3),
              "takeover not noticed: " + first.log())
        check(os.stat(sock).st_ino == other_ino, "other's socket replaced")
        check(first.stop() == 0, "exit code")
        check(os.path.exists(sock) and os.stat(sock).st_ino == other_ino,
              "other's socket unlinked at exit")
        other.close()
        log("a foreign live socket on our name survived our exit")
    finally:
        k.cleanup(tmp, procs)


if __name__ == "__main__":
    k.main({"watcher": test_watcher, "legacy_restart": test_legacy_restart,
            "live_instance": test_live_instance})
