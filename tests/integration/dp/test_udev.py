# SPDX-License-Identifier: MIT
"""The plugin's udev monitor receives real kernel uevents: run inside a
throw-away network namespace (dp_udev.sh), add a veth pair there and
see the event counted and a rescan made."""
import os
import subprocess

import dpkube as k
from dpkube import check, log
import test_kernel as tk


def test_udev():
    tmp = k.make_tmp("udev")
    procs = []
    try:
        cfg = tk.config(tmp)
        plugin = k.Plugin(tmp, cfg)
        procs.append(plugin)
        check(k.wait_until(lambda: "metrics on" in plugin.log(), 5),
              "plugin did not start: " + plugin.log())
        if "udev monitor unavailable" in plugin.log():
            raise k.Skip("no udev netlink monitor here")
        m0 = plugin.metrics()
        ev0 = m0[("podverbs_dp_udev_events_total", ())]
        subprocess.run(["ip", "link", "add", "pvdpa0", "type", "veth", "peer", "name", "pvdpb0"],
                       check=True)
        try:
            got = k.wait_until(lambda: plugin.metrics()[
                ("podverbs_dp_udev_events_total", ())] > ev0, 3, 0.05)
            check(got, "no uevent seen for a new net device: " + plugin.log())
        finally:
            subprocess.run(["ip", "link", "del", "pvdpa0"], check=False)
        m1 = plugin.metrics()
        check(m1[("podverbs_dp_rescans_total", ())] >
              m0[("podverbs_dp_rescans_total", ())], "no rescan")
        log("uevents counted: %d" % m1[("podverbs_dp_udev_events_total", ())])
        check(plugin.stop() == 0, "exit code")
    finally:
        k.cleanup(tmp, procs)


if __name__ == "__main__":
    k.main({"udev": test_udev})
