# SPDX-License-Identifier: MIT
"""Soft pool: legacy registration, ListAndWatch, Allocate field by field,
concurrent Allocate, engine health, metrics, seccomp."""
import os
import threading
import time

import dpkube as k
from dpkube import check, log, pb


def base_config(tmp, engine_sock, count=4):
    os.makedirs(os.path.join(tmp, "dp"), exist_ok=True)
    return {
        "pluginDir": os.path.join(tmp, "dp"),
        "pluginsRegistryDir": os.path.join(tmp, "no-registry"),
        "registration": "auto",
        "engineSocket": engine_sock,
        "containerEngineDir": "/run/podverbs",
        "sysfsRoot": os.path.join(tmp, "no-sysfs"),
        "metricsAddress": "127.0.0.1:%d" % k.free_port(),
        "healthIntervalMs": 100,
        "soft": {"resourceName": "podverbs.io/soft-rdma", "count": count},
    }


def test_soft():
    tmp = k.make_tmp("soft")
    procs = []
    try:
        eng = k.Engine(tmp)
        procs.append(eng)
        cfg = base_config(tmp, eng.sock)
        kubelet = k.Kubelet(os.path.join(cfg["pluginDir"], "kubelet.sock"))
        kubelet.start()
        plugin = k.Plugin(tmp, cfg)
        procs.append(plugin)

        # Registration fields.
        regs = kubelet.wait_registrations(1, 5)
        check(len(regs) == 1, "no Register within 5 s: " + plugin.log())
        r = regs[0][1]
        check(r.version == "v1beta1", "version %r" % r.version)
        check(r.endpoint == "podverbs-soft-rdma.sock", "endpoint %r" % r.endpoint)
        check(r.resource_name == "podverbs.io/soft-rdma", "resource %r" % r.resource_name)
        check(r.options.get_preferred_allocation_available, "options")
        check(not r.options.pre_start_required, "pre_start_required")
        sock = os.path.join(cfg["pluginDir"], r.endpoint)

        chan, st = k.stub(sock)
        opts = st.GetDevicePluginOptions(pb.Empty(), timeout=5)
        check(opts.get_preferred_allocation_available and not opts.pre_start_required,
              "GetDevicePluginOptions %s" % opts)

        # ListAndWatch: 4 healthy slots, no topology.
        w = k.Watch(sock)
        first = w.wait_for(lambda m: True, 5)
        check(first == {"soft-%d" % i: ("Healthy", []) for i in range(4)},
              "first list %s" % first)
        log("ListAndWatch:", first)

        # Allocate, field by field.
        resp = k.allocate(st, ["soft-1"], ["soft-2", "soft-3"])
        check(len(resp.container_responses) == 2, "two containers")
        for c in resp.container_responses:
            check(len(c.mounts) == 1, "one mount: %s" % c)
            m = c.mounts[0]
            check(m.host_path == os.path.dirname(eng.sock), "mount host %r" % m.host_path)
            check(m.container_path == "/run/podverbs", "mount ctr %r" % m.container_path)
            check(m.read_only, "mount read-only")
            check(dict(c.envs) == {"PODVERBS_ENGINE": "/run/podverbs/engine.sock"},
                  "envs %s" % dict(c.envs))
            # The node UCX needs, /dev/null under the soft dev_name.
            check(len(c.devices) == 1 and len(c.cdi_devices) == 0,
                  "one device, no CDI: %s" % c)
            d = c.devices[0]
            check(d.container_path == "/dev/infiniband/podverbs",
                  "device ctr %r" % d.container_path)
            check(d.host_path == "/dev/null", "device host %r" % d.host_path)
            check(d.permissions == "rw", "device perms %r" % d.permissions)
            check(len(c.annotations) == 0, "no annotations")

        # Unknown ID: a clear error, the daemon goes on.
        try:
            k.allocate(st, ["soft-99"])
            check(False, "unknown ID accepted")
        except k.grpc.RpcError as e:
            check(e.code() == k.grpc.StatusCode.INVALID_ARGUMENT, "code %s" % e.code())
            check("soft-99" in e.details(), "details %r" % e.details())
        st.PreStartContainer(pb.PreStartContainerRequest(devices_ids=["soft-0"]),
                             timeout=5)

        # Concurrent Allocate: 16 threads x 10 calls on separate channels.
        errors, done = [], []

        def worker(n):
            c2, s2 = k.stub(sock)
            try:
                for i in range(10):
                    rr = k.allocate(s2, ["soft-%d" % ((n + i) % 4)])
                    c = rr.container_responses[0]
                    if dict(c.envs)["PODVERBS_ENGINE"] != "/run/podverbs/engine.sock":
                        errors.append("bad env")
                    done.append(1)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))
            finally:
                c2.close()
        t0 = time.monotonic()
        ts = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        check(not errors, "concurrent errors: %s" % errors[:3])
        check(len(done) == 160, "done %d" % len(done))
        log("160 concurrent Allocate calls in %.3f s" % (time.monotonic() - t0))

        # Metrics, parsed.
        m = plugin.metrics()
        pool = (("pool", "podverbs.io/soft-rdma"),)
        check(m[("podverbs_dp_allocations_total", pool)] == 162,
              "allocations %s" % m[("podverbs_dp_allocations_total", pool)])
        check(m[("podverbs_dp_allocate_errors_total", pool)] == 1, "alloc errors")
        check(m[("podverbs_dp_registrations_total", pool)] == 1, "registrations")
        check(m[("podverbs_dp_registered", pool)] == 1, "registered")
        check(m[("podverbs_dp_list_streams", pool)] == 1, "streams")
        check(m[("podverbs_dp_engine_reachable", ())] == 1, "engine reachable")
        check(m[("podverbs_dp_devices", (("health", "Healthy"),) + pool)] == 4,
              "healthy devices")
        log("metrics parsed: %d samples" % len(m))

        # Seccomp confinement is in place.
        with open("/proc/%d/status" % plugin.p.pid) as f:
            status = f.read()
        check("Seccomp:\t2" in status, "seccomp not in filter mode")

        # Engine stopped -> Unhealthy; restarted -> Healthy.
        eng.stop()
        t0 = time.monotonic()
        got = w.wait_for(lambda m: all(v[0] == "Unhealthy" for v in m.values()), 5)
        check(got, "slots not Unhealthy after engine stop: %s" % w.latest())
        log("engine down -> Unhealthy after %.3f s" % (time.monotonic() - t0))
        check(plugin.metrics()[("podverbs_dp_engine_reachable", ())] == 0,
              "metrics engine_reachable 0")
        eng = k.Engine(tmp)
        procs.append(eng)
        t0 = time.monotonic()
        got = w.wait_for(lambda m: all(v[0] == "Healthy" for v in m.values()), 5)
        check(got, "slots not Healthy after engine restart: %s" % w.latest())
        log("engine up -> Healthy after %.3f s" % (time.monotonic() - t0))
        check(len(got) == 4, "still 4 slots")

        # Streams that kubelet drops are noticed and freed.
        many = [k.Watch(sock) for _ in range(20)]
        for x in many:
            check(x.wait_for(lambda m: len(m) == 4, 5), "extra stream list")
        pool_streams = ("podverbs_dp_list_streams", pool)
        check(plugin.metrics()[pool_streams] == 21, "21 open streams")
        for x in many:
            x.close()
        check(k.wait_until(lambda: plugin.metrics()[pool_streams] == 1, 5, 0.05),
              "dropped streams not freed: %s" % plugin.metrics()[pool_streams])

        w.close()
        chan.close()
        rc = plugin.stop()
        check(rc == 0, "SIGTERM exit code %s" % rc)
        check(not os.path.exists(sock), "socket left behind after SIGTERM")
        kubelet.stop()
    finally:
        k.cleanup(tmp, procs)


if __name__ == "__main__":
    k.main({"soft": test_soft})
