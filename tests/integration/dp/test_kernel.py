# SPDX-License-Identifier: MIT
"""Kernel pools over a sysfs fixture (four mlx5 functions on two NUMA nodes
and a bnxt_re): ListAndWatch with topology, Allocate field by field,
CDI, preferred allocation across NUMA nodes, udev-style removal and port
down -> Unhealthy, and back."""
import json
import os
import shutil
import time

import dpkube as k
from dpkube import check, log

FIXTURE = os.path.join(k.ROOT, "tests", "fixtures", "sysfs", "mlx5-2numa")
ENV_MLX = "PODVERBS_DEVICES_PODVERBS_IO_MLX"


def config(tmp):
    sysfs = os.path.join(tmp, "sys")
    shutil.copytree(FIXTURE, sysfs, symlinks=True)
    for d in ("dp", "cdi"):
        os.makedirs(os.path.join(tmp, d))
    return {
        "pluginDir": os.path.join(tmp, "dp"),
        "pluginsRegistryDir": os.path.join(tmp, "no-registry"),
        "engineSocket": os.path.join(tmp, "engine.sock"),
        "sysfsRoot": sysfs,
        "devDir": os.path.join(tmp, "hostdev", "infiniband"),
        "cdiSpecDir": os.path.join(tmp, "cdi"),
        "metricsAddress": "127.0.0.1:%d" % k.free_port(),
        "healthIntervalMs": 100,
        "soft": {"count": 0},
        "kernelPools": [
            {"resourceName": "podverbs.io/mlx", "mode": "exclusive",
             "selectors": {"vendors": ["15b3"], "drivers": ["mlx5_core"],
                           "linkTypes": ["ether"]}},
            {"resourceName": "podverbs.io/bnxt", "mode": "shared",
             "slotsPerDevice": 3, "umad": True,
             "selectors": {"rdmaDevices": ["bnxt_re0"]}},
        ],
    }


def spec(d):
    return (d.container_path, d.host_path, d.permissions)


def check_lists(w_mlx, w_bnxt):
    mlx = w_mlx.wait_for(lambda m: len(m) == 4, 5)
    check(mlx == {"mlx5_0": ("Healthy", [0]), "mlx5_1": ("Healthy", [0]),
                  "mlx5_2": ("Healthy", [1]), "mlx5_3": ("Healthy", [1])},
          "mlx list %s" % mlx)
    bnxt = w_bnxt.wait_for(lambda m: len(m) == 3, 5)
    check(bnxt == {"bnxt_re0-%d" % i: ("Healthy", [0]) for i in range(3)},
          "bnxt list %s" % bnxt)
    log("ListAndWatch mlx:", mlx)


def check_allocate(cfg, st_mlx, st_bnxt):
    dev = cfg["devDir"]
    r = k.allocate(st_mlx, ["mlx5_2"], ["mlx5_0", "mlx5_1"])
    c0, c1 = r.container_responses
    check([spec(d) for d in c0.devices] ==
          [("/dev/infiniband/uverbs2", dev + "/uverbs2", "rw"),
           ("/dev/infiniband/rdma_cm", dev + "/rdma_cm", "rw")],
          "c0 devices %s" % c0.devices)
    check(len(c0.mounts) == 0 and len(c0.annotations) == 0, "c0 no mounts")
    check(list(dict(c0.envs)) == [ENV_MLX], "c0 env keys %s" % dict(c0.envs))
    info = json.loads(c0.envs[ENV_MLX])
    check(info == [{"id": "mlx5_2", "rdmaDevice": "mlx5_2",
                    "uverbs": "/dev/infiniband/uverbs2",
                    "umad": "/dev/infiniband/umad2",
                    "pciAddress": "0000:af:00.0", "vendor": "15b3",
                    "deviceID": "101d", "driver": "mlx5_core",
                    "netdev": "ens2f0np0", "linkLayer": "Ethernet",
                    "numaNode": 1}], "c0 env json %s" % info)
    check([c.name for c in c0.cdi_devices] == ["podverbs.io/mlx=mlx5_2"],
          "c0 cdi %s" % c0.cdi_devices)
    check([spec(d)[0] for d in c1.devices] ==
          ["/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1",
           "/dev/infiniband/rdma_cm"], "c1 devices %s" % c1.devices)
    check([d["rdmaDevice"] for d in json.loads(c1.envs[ENV_MLX])] ==
          ["mlx5_0", "mlx5_1"], "c1 env")

    # Shared pool with umad: two slots of one device -> one uverbs.
    r = k.allocate(st_bnxt, ["bnxt_re0-0", "bnxt_re0-2"])
    c = r.container_responses[0]
    check([spec(d) for d in c.devices] ==
          [("/dev/infiniband/uverbs4", dev + "/uverbs4", "rw"),
           ("/dev/infiniband/umad4", dev + "/umad4", "rw"),
           ("/dev/infiniband/rdma_cm", dev + "/rdma_cm", "rw")],
          "bnxt devices %s" % c.devices)
    env = json.loads(c.envs["PODVERBS_DEVICES_PODVERBS_IO_BNXT"])
    check([e["id"] for e in env] == ["bnxt_re0-0", "bnxt_re0-2"], "bnxt env")
    check([x.name for x in c.cdi_devices] ==
          ["podverbs.io/bnxt=bnxt_re0-0", "podverbs.io/bnxt=bnxt_re0-2"],
          "bnxt cdi")

    # The CDI spec describes the same edits.
    with open(os.path.join(cfg["cdiSpecDir"], "podverbs-mlx.json")) as f:
        cdi = json.load(f)
    check(cdi["kind"] == "podverbs.io/mlx" and cdi["cdiVersion"], "cdi kind")
    byname = {d["name"]: d for d in cdi["devices"]}
    check(sorted(byname) == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"], "cdi names")
    nodes = byname["mlx5_3"]["containerEdits"]["deviceNodes"]
    check([(n["path"], n["hostPath"]) for n in nodes] ==
          [("/dev/infiniband/uverbs3", dev + "/uverbs3"),
           ("/dev/infiniband/rdma_cm", dev + "/rdma_cm")], "cdi nodes %s" % nodes)


def check_preferred(st):
    all4 = ["mlx5_0", "mlx5_2", "mlx5_3", "mlx5_1"]
    got = k.preferred(st, all4, [], 2)
    check(sorted(got) in (["mlx5_0", "mlx5_1"], ["mlx5_2", "mlx5_3"]),
          "two from one NUMA node: %s" % got)
    got = k.preferred(st, all4, ["mlx5_3"], 2)
    check(got == ["mlx5_3", "mlx5_2"], "must-include on node 1: %s" % got)
    got = k.preferred(st, ["mlx5_0", "mlx5_2", "mlx5_3"], [], 2)
    check(sorted(got) == ["mlx5_2", "mlx5_3"], "node with room: %s" % got)
    got = k.preferred(st, all4, ["mlx5_1"], 3)
    check(got[:2] == ["mlx5_1", "mlx5_0"] and len(got) == 3,
          "fill node 0 then spill: %s" % got)
    log("preferred allocation checks passed")


def check_health(cfg, w):
    sysfs = cfg["sysfsRoot"]
    link = os.path.join(sysfs, "class", "infiniband", "mlx5_1")
    target = os.readlink(link)
    # udev-style removal: the device leaves class/infiniband.
    t0 = time.monotonic()
    os.unlink(link)
    got = w.wait_for(lambda m: m.get("mlx5_1", ("",))[0] == "Unhealthy", 5)
    check(got and got["mlx5_0"][0] == "Healthy", "removal: %s" % w.latest())
    log("device removed -> Unhealthy after %.3f s" % (time.monotonic() - t0))
    os.symlink(target, link)
    check(w.wait_for(lambda m: m["mlx5_1"][0] == "Healthy", 5), "re-added")
    # Port down and up again.
    state = os.path.join(link, "ports", "1", "state")
    with open(state, "w") as f:
        f.write("1: DOWN\n")
    t0 = time.monotonic()
    check(w.wait_for(lambda m: m["mlx5_1"][0] == "Unhealthy", 5), "port down")
    log("port down -> Unhealthy after %.3f s" % (time.monotonic() - t0))
    with open(state, "w") as f:
        f.write("4: ACTIVE\n")
    check(w.wait_for(lambda m: m["mlx5_1"][0] == "Healthy", 5), "port up")


def test_kernel():
    tmp = k.make_tmp("kernel")
    procs = []
    try:
        cfg = config(tmp)
        kubelet = k.Kubelet(os.path.join(cfg["pluginDir"], "kubelet.sock")).start()
        plugin = k.Plugin(tmp, cfg)
        procs.append(plugin)
        regs = kubelet.wait_registrations(2, 5)
        check(sorted(r.resource_name for _, r in regs) ==
              ["podverbs.io/bnxt", "podverbs.io/mlx"], "registrations " + plugin.log())
        s_mlx = os.path.join(cfg["pluginDir"], "podverbs-mlx.sock")
        s_bnxt = os.path.join(cfg["pluginDir"], "podverbs-bnxt.sock")
        w_mlx, w_bnxt = k.Watch(s_mlx), k.Watch(s_bnxt)
        check_lists(w_mlx, w_bnxt)
        c1, st_mlx = k.stub(s_mlx)
        c2, st_bnxt = k.stub(s_bnxt)
        check_allocate(cfg, st_mlx, st_bnxt)
        check_preferred(st_mlx)
        check_health(cfg, w_mlx)

        m = plugin.metrics()
        mlx = ("pool", "podverbs.io/mlx")
        check(m[("podverbs_dp_devices", (("health", "Healthy"), mlx))] == 4,
              "metrics healthy mlx")
        check(m[("podverbs_dp_allocations_total", (mlx,))] == 2, "metrics allocs")
        check(m[("podverbs_dp_preferred_allocation_calls_total", (mlx,))] == 4,
              "metrics preferred")
        w_mlx.close()
        w_bnxt.close()
        c1.close()
        c2.close()
        check(plugin.stop() == 0, "exit code")
        kubelet.stop()
    finally:
        k.cleanup(tmp, procs)


if __name__ == "__main__":
    k.main({"kernel": test_kernel})
