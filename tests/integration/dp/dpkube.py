# SPDX-License-Identifier: MIT
"""A kubelet stand-in for podverbs-device-plugin tests, built on python3-grpcio.

It serves v1beta1.Registration on a kubelet socket (legacy registration),
plays kubelet's plugin watcher (GetInfo / NotifyRegistrationStatus), and
calls the plugin's DevicePlugin service.  Python stubs are generated at
import time from device-plugin/protos into a temporary folder.

Run with /usr/bin/python3 (Debian's grpcio and grpc_tools).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent import futures

ROOT = os.environ.get("PV_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BUILD = os.environ.get("PV_BUILD") or os.path.join(ROOT, "build")
PLUGIN = os.path.join(BUILD, "bin", "podverbs-device-plugin")
ENGINE = os.path.join(BUILD, "bin", "podverbsd")
PROTOS = os.path.join(ROOT, "device-plugin", "protos")


class Skip(Exception):
    pass


def _gen_stubs():
    try:
        import grpc  # noqa: F401
        import grpc_tools.protoc  # noqa: F401
    except ImportError as e:
        print("SKIP: python3-grpcio / python3-grpc-tools missing: %s" % e)
        sys.exit(77)
    out = tempfile.mkdtemp(prefix="pv-dp-stubs-")
    cmd = [sys.executable, "-m", "grpc_tools.protoc", "-I", PROTOS,
           "--python_out=" + out, "--grpc_python_out=" + out,
           "deviceplugin_v1beta1.proto", "deviceplugin_v1beta1_service.proto",
           "pluginregistration_v1.proto"]
    subprocess.run(cmd, check=True)
    sys.path.insert(0, out)
    return out


_STUBS = _gen_stubs()
import grpc  # noqa: E402
import deviceplugin_v1beta1_pb2 as pb  # noqa: E402
import deviceplugin_v1beta1_service_pb2_grpc as pbg  # noqa: E402
import pluginregistration_v1_pb2 as regpb  # noqa: E402
import pluginregistration_v1_pb2_grpc as regg  # noqa: E402


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def wait_until(pred, timeout, step=0.01):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


class Kubelet:
    """Serves v1beta1.Registration on sock; records each RegisterRequest."""

    class _Servicer(pbg.RegistrationServicer):
        def __init__(self, owner):
            self.owner = owner

        def Register(self, request, context):
            with self.owner.cond:
                self.owner.registrations.append((time.monotonic(), request))
                self.owner.cond.notify_all()
            return pb.Empty()

    def __init__(self, sock):
        self.sock = sock
        self.registrations = []
        self.cond = threading.Condition()
        self.server = None
        self.created_at = None

    def start(self):
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pbg.add_RegistrationServicer_to_server(self._Servicer(self), self.server)
        self.server.add_insecure_port("unix:" + self.sock)
        self.server.start()
        self.created_at = time.monotonic()
        return self

    def stop(self):
        if self.server:
            self.server.stop(0).wait()
            self.server = None

    def wait_registrations(self, n, timeout):
        with self.cond:
            self.cond.wait_for(lambda: len(self.registrations) >= n, timeout)
            return list(self.registrations)


def restart_kubelet(old, plugin_dir):
    """What kubelet's device manager does on start: stop, delete every socket
    in its plugin folder, then serve kubelet.sock anew."""
    old.stop()
    for name in os.listdir(plugin_dir):
        p = os.path.join(plugin_dir, name)
        if name != "kubelet_internal_checkpoint":
            os.unlink(p)
    return Kubelet(old.sock).start()


class Watch:
    """A ListAndWatch stream read on a thread; keeps every message."""

    def __init__(self, sock):
        self.chan = grpc.insecure_channel("unix:" + sock)
        self.stub = pbg.DevicePluginStub(self.chan)
        self.msgs = []
        self.cond = threading.Condition()
        self.error = None
        self.call = self.stub.ListAndWatch(pb.Empty())
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            for m in self.call:
                with self.cond:
                    self.msgs.append(
                        {d.ID: (d.health, [n.ID for n in d.topology.nodes])
                         for d in m.devices})
                    self.cond.notify_all()
        except grpc.RpcError as e:
            with self.cond:
                self.error = e
                self.cond.notify_all()

    def latest(self):
        with self.cond:
            return self.msgs[-1] if self.msgs else None

    def wait_for(self, pred, timeout=5.0):
        with self.cond:
            ok = self.cond.wait_for(
                lambda: self.msgs and pred(self.msgs[-1]), timeout)
            return self.msgs[-1] if ok else None

    def close(self):
        self.call.cancel()
        self.chan.close()


def stub(sock):
    chan = grpc.insecure_channel("unix:" + sock)
    return chan, pbg.DevicePluginStub(chan)


def reg_stub(sock):
    chan = grpc.insecure_channel("unix:" + sock)
    return chan, regg.RegistrationStub(chan)


def allocate(st, *containers, timeout=5):
    req = pb.AllocateRequest(container_requests=[
        pb.ContainerAllocateRequest(devices_ids=list(c)) for c in containers])
    return st.Allocate(req, timeout=timeout)


def preferred(st, avail, must, size):
    req = pb.PreferredAllocationRequest(container_requests=[
        pb.ContainerPreferredAllocationRequest(
            available_deviceIDs=list(avail), must_include_deviceIDs=list(must),
            allocation_size=size)])
    return list(st.GetPreferredAllocation(req, timeout=5)
                .container_responses[0].deviceIDs)


class Proc:
    """A daemon we started; stopped by its PID."""

    def __init__(self, argv, logpath):
        self.logpath = logpath
        self.logf = open(logpath, "ab")
        self.p = subprocess.Popen(argv, stdout=self.logf,
                                  stderr=subprocess.STDOUT)

    def alive(self):
        return self.p.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=5):
        if self.p.poll() is None:
            self.p.send_signal(sig)
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.logf.close()
        return self.p.returncode

    def log(self):
        with open(self.logpath, errors="replace") as f:
            return f.read()


class Engine(Proc):
    def __init__(self, tmp):
        if not os.access(ENGINE, os.X_OK):
            raise Skip("podverbsd not built")
        self.sock = os.path.join(tmp, "engine", "engine.sock")
        os.makedirs(os.path.dirname(self.sock), exist_ok=True)
        super().__init__([ENGINE, "--socket", self.sock, "--foreground"],
                         os.path.join(tmp, "engine.log"))
        if not wait_until(lambda: os.path.exists(self.sock), 5):
            raise AssertionError("engine did not start: " + self.log())


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Plugin(Proc):
    def __init__(self, tmp, cfg, name="dp"):
        if not os.access(PLUGIN, os.X_OK):
            raise Skip("podverbs-device-plugin not built")
        self.cfg = cfg
        self.cfg_path = os.path.join(tmp, name + ".json")
        with open(self.cfg_path, "w") as f:
            json.dump(cfg, f)
        super().__init__([PLUGIN, "--config", self.cfg_path],
                         os.path.join(tmp, name + ".log"))

    def rewrite(self, cfg):
        self.cfg = cfg
        with open(self.cfg_path, "w") as f:
            json.dump(cfg, f)

    def metrics(self):
        url = "http://%s/metrics" % self.cfg["metricsAddress"]
        with urllib.request.urlopen(url, timeout=5) as r:
            check(r.headers.get("Content-Type", "").startswith("text/plain"),
                  "metrics content type")
            return parse_metrics(r.read().decode())


def parse_metrics(text):
    """Prometheus text format -> {(name, ((label, value), ...)): float}."""
    out = {}
    types = {}
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            types[name] = typ
            continue
        if line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        labels = ()
        if "{" in head:
            name, rest = head.split("{", 1)
            check(rest.endswith("}"), "bad metric line " + line)
            pairs = [kv for kv in rest[:-1].split(",") if kv]
            labels = tuple(sorted(
                (k, v.strip('"')) for k, v in (kv.split("=", 1) for kv in pairs)))
        else:
            name = head
        check(name in types, "metric %s has no TYPE line" % name)
        out[(name, labels)] = float(value)
    return out


def make_tmp(tag):
    return tempfile.mkdtemp(prefix="pv-dp-%s-" % tag)


def cleanup(tmp, procs):
    for p in procs:
        try:
            p.stop()
        except Exception:
            pass
    shutil.rmtree(tmp, ignore_errors=True)


def main(tests):
    """Runs tests[name] for name in argv; exit 0 pass, 77 skip, 1 fail."""
    names = sys.argv[1:] or list(tests)
    try:
        for n in names:
            log("== " + n)
            tests[n]()
            log("ok " + n)
    except Skip as e:
        print("SKIP: %s" % e, flush=True)
        sys.exit(77)
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
    finally:
        shutil.rmtree(_STUBS, ignore_errors=True)
