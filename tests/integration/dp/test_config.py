# SPDX-License-Identifier: MIT
"""Config handling of the running daemon: bad configs give a clear error
naming the key and exit code 2; --check-config; SIGHUP reloads a good
config (new device count, re-registration) and refuses a bad one while
keeping the running config; SIGTERM exits 0."""
import json
import os
import signal
import subprocess

import dpkube as k
from dpkube import check, log

BAD = [
    ({"kernelPools": [{"resourceName": "podverbs.io/x", "mode": "sharde",
                       "selectors": {}}]},
     "kernelPools[0].mode: \"sharde\" is not \"shared\" or \"exclusive\""),
    ({"soft": {"count": "many"}}, "soft.count: expected an integer"),
    ({"kernelPools": [{"resourceName": "podverbs.io/x",
                       "selectors": {"vendors": ["mellanox"]}}]},
     "kernelPools[0].selectors.vendors[0]: \"mellanox\" is not 4 hex digits"),
    ({"metricsAdress": "127.0.0.1:1"}, "unknown key \"metricsAdress\""),
]


def run_plugin(path, *extra):
    return subprocess.run([k.PLUGIN, "--config", path, *extra],
                          capture_output=True, text=True, timeout=10)


def test_bad_configs():
    tmp = k.make_tmp("badcfg")
    try:
        for i, (cfg, want) in enumerate(BAD):
            path = os.path.join(tmp, "bad%d.json" % i)
            with open(path, "w") as f:
                json.dump(cfg, f)
            r = run_plugin(path)
            check(r.returncode == 2, "bad config %d: exit %d" % (i, r.returncode))
            check(want in r.stderr, "bad config %d: stderr %r lacks %r"
                  % (i, r.stderr, want))
            check(path in r.stderr, "message names the file")
            log("rejected: " + r.stderr.strip())
        path = os.path.join(tmp, "broken.json")
        with open(path, "w") as f:
            f.write('{"soft": {"count": 3,}')
        r = run_plugin(path)
        check(r.returncode == 2 and "not valid JSON" in r.stderr, r.stderr)
        r = run_plugin(os.path.join(tmp, "absent.json"))
        check(r.returncode == 2 and "No such file" in r.stderr, r.stderr)
        r = subprocess.run([k.PLUGIN, "--bogus"], capture_output=True, text=True)
        check(r.returncode == 2 and "usage" in r.stderr, "bad option")
        path = os.path.join(tmp, "good.json")
        with open(path, "w") as f:
            json.dump({"soft": {"count": 3}}, f)
        r = run_plugin(path, "--check-config")
        check(r.returncode == 0 and "OK, 1 pools" in r.stdout, r.stdout + r.stderr)
    finally:
        k.cleanup(tmp, [])


def test_reload():
    tmp = k.make_tmp("reload")
    procs = []
    try:
        dpdir = os.path.join(tmp, "dp")
        os.makedirs(dpdir)
        cfg = {"pluginDir": dpdir,
               "pluginsRegistryDir": os.path.join(tmp, "no-registry"),
               "engineSocket": os.path.join(tmp, "engine.sock"),
               "sysfsRoot": os.path.join(tmp, "no-sysfs"),
               "metricsAddress": "127.0.0.1:%d" % k.free_port(),
               "healthIntervalMs": 100,
               "soft": {"count": 4}}
        kubelet = k.Kubelet(os.path.join(dpdir, "kubelet.sock")).start()
        plugin = k.Plugin(tmp, cfg)
        procs.append(plugin)
        check(kubelet.wait_registrations(1, 5), "first registration")
        sock = os.path.join(dpdir, "podverbs-soft-rdma.sock")
        w = k.Watch(sock)
        check(w.wait_for(lambda m: len(m) == 4, 5), "4 slots")

        # A good reload: six slots, registered again.
        cfg["soft"]["count"] = 6
        plugin.rewrite(cfg)
        plugin.p.send_signal(signal.SIGHUP)
        check(len(kubelet.wait_registrations(2, 5)) == 2,
              "no re-registration after reload: " + plugin.log())
        w.close()
        w = k.Watch(sock)
        check(w.wait_for(lambda m: len(m) == 6, 5), "6 slots after reload: %s"
              % w.latest())
        m = plugin.metrics()
        check(m[("podverbs_dp_config_reloads_total", ())] == 1, "reloads metric")

        # A bad reload: refused, the daemon keeps serving six slots.
        with open(plugin.cfg_path, "w") as f:
            f.write('{"soft": {"count": 6}, "kernelPools": [{"mode": 1}]}')
        plugin.p.send_signal(signal.SIGHUP)
        check(k.wait_until(lambda: "reload refused" in plugin.log(), 5),
              "bad reload not reported: " + plugin.log())
        check("kernelPools[0]" in plugin.log(), "bad reload names the key")
        check(plugin.alive(), "daemon died on a bad reload")
        w2 = k.Watch(sock)
        check(w2.wait_for(lambda m: len(m) == 6, 5), "still 6 slots")
        m = plugin.metrics()
        check(m[("podverbs_dp_config_reload_failures_total", ())] == 1,
              "reload failures metric")
        w.close()
        w2.close()
        rc = plugin.stop()
        check(rc == 0, "SIGTERM exit %s" % rc)
        check(not os.path.exists(sock), "socket removed on exit")
        kubelet.stop()
    finally:
        k.cleanup(tmp, procs)


if __name__ == "__main__":
    k.main({"bad_configs": test_bad_configs, "reload": test_reload})
