# SPDX-License-Identifier: MIT
"""In the VM (tests/vm/t_dp_kernel.sh): podverbs-device-plugin over the
kernel's real /sys, udev and /dev/infiniband, driven by the kubelet
stand-in of the integration tests (tests/integration/dp/dpkube.py).

Phase 1 (health timer 60 s, so only udev can be what notices a change):
rxe0 is discovered at start; ListAndWatch, Allocate field by field against
/sys/class/infiniband_verbs and /dev/infiniband; a second rxe device made
with `rdma link add` appears, and is Unhealthy once `rdma link delete`d.
Phase 2 (health timer 200 ms): `ip link set eth0 down` turns rxe0's port
DOWN -> Unhealthy in the stream; up -> Healthy again.
Prints what it saw; exit 0 pass, 1 fail, 77 skip."""
import json
import os
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.environ["PV_ROOT"], "tests", "integration",
                                "dp"))
import dpkube as k  # noqa: E402
from dpkube import check, log  # noqa: E402

WORK = os.path.join(os.environ["VM_WORK"], "dp")	# configs and logs
# Sockets cannot be bound on the 9p share (ENXIO): the VM's own tmpfs.
SOCKS = "/tmp/kvmdp"
ENV = "PODVERBS_DEVICES_PODVERBS_IO_KRDMA"
HOT = "kvmrxe1"


def sh(cmd, ok=True):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if ok and p.returncode:
        raise AssertionError("%s: rc %d: %s%s" % (cmd, p.returncode,
                                                  p.stdout, p.stderr))
    return p.stdout.strip()


def uverbs_of(ibdev):
    """N of the kernel's uverbsN for ibdev, read straight from sysfs."""
    base = "/sys/class/infiniband_verbs"
    for n in sorted(os.listdir(base)):
        if n.startswith("uverbs"):
            with open(os.path.join(base, n, "ibdev")) as f:
                if f.read().strip() == ibdev:
                    return n
    raise AssertionError("no uverbs device for %s" % ibdev)


def config(interval):
    plugin_dir = os.path.join(SOCKS, "plugins")
    os.makedirs(plugin_dir, exist_ok=True)
    return {
        "pluginDir": plugin_dir,
        "pluginsRegistryDir": os.path.join(SOCKS, "no-registry"),
        "engineSocket": os.path.join(SOCKS, "engine.sock"),
        "sysfsRoot": "/sys",
        "devDir": "/dev/infiniband",
        "metricsAddress": "127.0.0.1:%d" % k.free_port(),
        "healthIntervalMs": interval,
        "soft": {"count": 0},
        "kernelPools": [
            {"resourceName": "podverbs.io/krdma", "mode": "exclusive",
             "selectors": {"linkTypes": ["ether"]}}],
    }


def start(interval, tag):
    cfg = config(interval)
    kubelet = k.Kubelet(os.path.join(cfg["pluginDir"], "kubelet.sock")).start()
    t0 = time.monotonic()
    plugin = k.Plugin(WORK, cfg, name="dp-" + tag)
    regs = kubelet.wait_registrations(1, 30)
    check([r.resource_name for _, r in regs] == ["podverbs.io/krdma"],
          "registration: %s\n%s" % (regs, plugin.log()))
    log("registered podverbs.io/krdma after %.2f s" % (time.monotonic() - t0))
    sock = os.path.join(cfg["pluginDir"], "podverbs-krdma.sock")
    return cfg, kubelet, plugin, sock


def stop(kubelet, plugin, *closers):
    for c in closers:
        c.close()
    rc = plugin.stop()
    kubelet.stop()
    check(rc == 0, "plugin exit code %s:\n%s" % (rc, plugin.log()))


def check_allocate(st):
    r = k.allocate(st, ["rxe0"])
    c = r.container_responses[0]
    uv = uverbs_of("rxe0")
    specs = [(d.container_path, d.host_path, d.permissions) for d in c.devices]
    log("Allocate rxe0: devices", specs)
    check(specs == [("/dev/infiniband/" + uv, "/dev/infiniband/" + uv, "rw"),
                    ("/dev/infiniband/rdma_cm", "/dev/infiniband/rdma_cm",
                     "rw")], "Allocate devices %s" % specs)
    for _, host, _ in specs:
        check(stat.S_ISCHR(os.stat(host).st_mode),
              "%s is not a character device" % host)
    info = json.loads(c.envs[ENV])
    log("Allocate rxe0: %s=%s" % (ENV, json.dumps(info)))
    check(len(info) == 1, "env %s" % info)
    e = info[0]
    check(e["rdmaDevice"] == "rxe0" and e["uverbs"] == "/dev/infiniband/" + uv,
          "env device %s" % e)
    check(e["netdev"] == "eth0", "rxe0's netdev: %r, want eth0" % e["netdev"])
    check(e["linkLayer"] == "Ethernet", "link layer %r" % e["linkLayer"])
    check(e["pciAddress"] == "", "rxe0 is virtual: pciAddress %r" % e["pciAddress"])
    check("umad" not in e, "rxe has no umad: %s" % e)
    return e


def phase_udev():
    cfg, kubelet, plugin, sock = start(60000, "udev")
    w = k.Watch(sock)
    chan, st = k.stub(sock)
    got = w.wait_for(lambda m: "rxe0" in m, 15)
    check(got, "rxe0 not listed: %s\n%s" % (w.latest(), plugin.log()))
    log("ListAndWatch at start:", got)
    health, nodes = got["rxe0"]
    check(health == "Healthy", "rxe0 %s" % health)
    e = check_allocate(st)
    # No device/numa_node for a virtual device: the NUMA node is that of
    # eth0's device (virtio under PCI 00:04.0); the VM has no NUMA, so -1
    # and no TopologyInfo.
    numa = sh("cat /sys/class/net/eth0/device/../numa_node", ok=False) or "absent"
    log("rxe0 NUMA: plugin %s, /sys/class/net/eth0/device/../numa_node %s, "
        "ListAndWatch topology %s" % (e["numaNode"], numa, nodes))
    check(str(e["numaNode"]) == (numa if numa != "absent" else "-1"),
          "numaNode %s vs sysfs %s" % (e["numaNode"], numa))
    check(nodes == ([] if e["numaNode"] < 0 else [e["numaNode"]]),
          "topology %s for numa %s" % (nodes, e["numaNode"]))

    # Hotplug through udev: the timer would not look for 60 s.
    m0 = plugin.metrics()[("podverbs_dp_udev_events_total", ())]
    sh("ip link add kvmdp0 type veth peer name kvmdp1 && "
       "ip link set kvmdp1 up && ip link set kvmdp0 up")
    t0 = time.monotonic()
    sh("rdma link add %s type rxe netdev kvmdp0" % HOT)
    got = w.wait_for(lambda m: HOT in m, 20)
    dt = time.monotonic() - t0
    check(got, "%s did not appear: %s\n%s" % (HOT, w.latest(), plugin.log()))
    log("rdma link add %s -> listed after %.2f s: %s" % (HOT, dt, got))
    check(dt < 30, "appearance took %.1f s (timer, not udev?)" % dt)
    r = k.allocate(st, [HOT])
    uv = uverbs_of(HOT)
    check([d.container_path for d in r.container_responses[0].devices] ==
          ["/dev/infiniband/" + uv, "/dev/infiniband/rdma_cm"],
          "Allocate %s: %s" % (HOT, r.container_responses[0].devices))
    log("Allocate %s -> /dev/infiniband/%s" % (HOT, uv))
    t0 = time.monotonic()
    sh("rdma link delete %s" % HOT)
    got = w.wait_for(lambda m: m.get(HOT, ("",))[0] == "Unhealthy", 20)
    dt = time.monotonic() - t0
    check(got and got["rxe0"][0] == "Healthy",
          "after delete: %s\n%s" % (w.latest(), plugin.log()))
    log("rdma link delete %s -> Unhealthy after %.2f s: %s" % (HOT, dt, got))
    m1 = plugin.metrics()[("podverbs_dp_udev_events_total", ())]
    log("udev events seen: %d" % (m1 - m0))
    check(m1 > m0, "no udev events counted (%d -> %d)" % (m0, m1))
    sh("ip link del kvmdp0", ok=False)
    stop(kubelet, plugin, w, chan)


def phase_port():
    cfg, kubelet, plugin, sock = start(200, "port")
    w = k.Watch(sock)
    try:
        check(w.wait_for(lambda m: m.get("rxe0", ("",))[0] == "Healthy", 15),
              "rxe0 not Healthy: %s" % w.latest())
        t0 = time.monotonic()
        sh("ip link set eth0 down")
        got = w.wait_for(lambda m: m["rxe0"][0] == "Unhealthy", 20)
        state = sh("cat /sys/class/infiniband/rxe0/ports/1/state")
        check(got, "eth0 down: %s (port %s)" % (w.latest(), state))
        log("eth0 down: port '%s' (%s) -> Unhealthy after %.2f s" %
            (state, sh("rdma link show rxe0/1"), time.monotonic() - t0))
    finally:
        sh("ip link set eth0 up")
        sh(". %s/vm.env && ip route replace default via $VM_GW" %
           os.environ["VM_WORK"], ok=False)
    t0 = time.monotonic()
    got = w.wait_for(lambda m: m["rxe0"][0] == "Healthy", 30)
    check(got, "eth0 up: %s" % w.latest())
    log("eth0 up: port '%s' -> Healthy after %.2f s" %
        (sh("cat /sys/class/infiniband/rxe0/ports/1/state"),
         time.monotonic() - t0))
    stop(kubelet, plugin, w)


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    k.main({"udev": phase_udev, "port": phase_port})
