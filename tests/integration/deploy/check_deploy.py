#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""deploy/ is more than prose: parses every manifest, cross-checks them
against each other and the binaries, stages the image context the
Containerfile copies from, and runs each DaemonSet container's command
(and probes) from that staged tree with the host paths it mounts mapped
into a temporary folder.

Prints one "ok:" line per check; exits 0, 1 on the first failure, 77 to
skip.  Writes the engine container's capabilities to $PV_CAPS_OUT (one
per line) for deploy_manifests.sh's capability run."""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.environ.get("PV_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "../../.."))
BUILD = os.environ.get("PV_BUILD") or os.path.join(ROOT, "build")
K8S = os.path.join(ROOT, "deploy/k8s")
CONTAINERFILE = os.path.join(ROOT, "deploy/image/Containerfile")
RESOURCE = "podverbs.io/soft-rdma"
ENGINE_SOCK = "/run/podverbs/engine.sock"
ADMIN_SOCK = "/run/podverbs-admin/admin.sock"
# The host folders other parts of podverbs and Kubernetes agree on.
HOST_CONTRACT = {
    "podverbsd": {"/run/podverbs": "/run/podverbs",
                  "/run/podverbs-admin": "/run/podverbs-admin",
                  "/var/run/netns": "/var/run/netns",
                  "/run/podverbs-engine": "/run/podverbs-engine"},
    "device-plugin": {"/var/lib/kubelet/device-plugins":
                      "/var/lib/kubelet/device-plugins",
                      "/var/lib/kubelet/plugins_registry":
                      "/var/lib/kubelet/plugins_registry",
                      "/run/podverbs": "/run/podverbs"},
    "install-cni": {"/opt/cni/bin": None, "/etc/cni/net.d": None},
}
KNOWN_KINDS = {("v1", "Namespace"), ("v1", "ConfigMap"), ("v1", "Pod"),
               ("apps/v1", "DaemonSet"),
               ("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition")}

try:
    import yaml
except ImportError:
    print("SKIP: python3-yaml missing (mk/deps.sh installs it)")
    sys.exit(77)

# Short: unix socket paths under it must stay below 108 bytes.
TMP = tempfile.mkdtemp(prefix="pvd.", dir="/tmp")
os.chmod(TMP, 0o755)
CHILDREN = []


def cleanup():
    for p in CHILDREN:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    shutil.rmtree(TMP, ignore_errors=True)


def fail(msg):
    print("FAIL: " + msg)
    cleanup()
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)


def run(argv, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("timeout", 60)
    return subprocess.run(argv, text=True, **kw)


# ---- parse -------------------------------------------------------------

def load_docs():
    docs = {}
    for name in sorted(os.listdir(K8S)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(K8S, name)) as f:
            try:
                items = [d for d in yaml.safe_load_all(f) if d is not None]
            except yaml.YAMLError as e:
                fail("%s: %s" % (name, e))
        for d in items:
            key = (d.get("apiVersion"), d.get("kind"))
            check(key in KNOWN_KINDS, "%s: unexpected %s" % (name, key))
            check(d.get("metadata", {}).get("name"),
                  "%s: %s without metadata.name" % (name, key[1]))
        docs[name] = items
    check(set(docs) == {"podverbs.yaml", "example-network.yaml",
                        "example-pod.yaml"}, "manifests: %s" % sorted(docs))
    ok("%d YAML documents in %d files parse, kinds and apiVersions known"
       % (sum(len(v) for v in docs.values()), len(docs)))
    return docs


def one(docs, fname, kind):
    found = [d for d in docs[fname] if d["kind"] == kind]
    check(len(found) == 1, "%s: expected one %s" % (fname, kind))
    return found[0]


def container(spec, name, init=False):
    lst = spec.get("initContainers" if init else "containers", [])
    for c in lst:
        if c["name"] == name:
            return c
    fail("DaemonSet: no %scontainer %s" % ("init" if init else "", name))


# ---- static checks -----------------------------------------------------

def check_daemonset(ns, cm, ds):
    nsname = ns["metadata"]["name"]
    for o in (cm, ds):
        check(o["metadata"].get("namespace") == nsname,
              "%s not in namespace %s" % (o["kind"], nsname))
    tpl = ds["spec"]["template"]
    sel = ds["spec"]["selector"]["matchLabels"]
    labels = tpl["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in sel.items()),
          "DaemonSet selector does not match its template's labels")
    spec = tpl["spec"]
    check(spec.get("hostNetwork") is True, "hostNetwork must be true")
    # Issue 8: no client is identified by pid any more.
    check(not spec.get("hostPID"), "hostPID must not be set")
    vols = {v["name"]: v for v in spec["volumes"]}
    every = spec.get("initContainers", []) + spec["containers"]
    for c in every:
        check(c.get("image") == "podverbs:latest",
              "%s: image %s" % (c["name"], c.get("image")))
        check(c.get("imagePullPolicy") == "IfNotPresent",
              "%s: imagePullPolicy" % c["name"])
        sc = c.get("securityContext", {})
        adds = sc.get("capabilities", {}).get("add", [])
        # The API server refuses this combination.
        check(not (sc.get("allowPrivilegeEscalation") is False and
                   ("SYS_ADMIN" in adds or "CAP_SYS_ADMIN" in adds or
                    sc.get("privileged"))),
              "%s: allowPrivilegeEscalation false with SYS_ADMIN" % c["name"])
        for m in c.get("volumeMounts", []):
            check(m["name"] in vols, "%s: mount of unknown volume %s"
                  % (c["name"], m["name"]))
    for cname, want in HOST_CONTRACT.items():
        c = container(spec, cname, init=cname == "install-cni")
        mounts = {}
        for m in c.get("volumeMounts", []):
            hp = vols[m["name"]].get("hostPath", {}).get("path")
            mounts[hp] = m
        for host, inside in want.items():
            check(host in mounts, "%s: host %s not mounted" % (cname, host))
            if inside:
                check(mounts[host]["mountPath"] == inside,
                      "%s: %s mounted at %s" % (cname, host,
                                                 mounts[host]["mountPath"]))
    eng = container(spec, "podverbsd")
    nm = [m for m in eng["volumeMounts"] if m["mountPath"] == "/var/run/netns"]
    check(nm[0].get("mountPropagation") == "HostToContainer",
          "/var/run/netns needs mountPropagation HostToContainer")
    check(vols[[m for m in eng["volumeMounts"]
                if m["mountPath"] == "/run/podverbs"][0]["name"]]
          ["hostPath"].get("type") == "DirectoryOrCreate",
          "/run/podverbs hostPath type DirectoryOrCreate")
    ok("DaemonSet: host namespaces, images, volumes and the host-path "
       "contracts (engine socket dir, netns HostToContainer, kubelet "
       "device-plugin dirs, CNI dirs)")
    return spec, vols


def arg_after(argv, flag):
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            return argv[i + 1]
    return None


def check_cross(cm, spec, nad, pods):
    dp_cfg = json.loads(cm["data"]["device-plugin.json"])
    eng = container(spec, "podverbsd")
    sock = arg_after(eng["command"] + eng.get("args", []), "--socket")
    check(sock == ENGINE_SOCK, "engine --socket %s" % sock)
    admin = arg_after(eng["command"] + eng.get("args", []), "--admin-socket")
    check(admin == ADMIN_SOCK, "engine --admin-socket %s" % admin)
    check(not admin.startswith(os.path.dirname(sock) + "/"),
          "admin socket inside the pod socket's folder")
    for probe in ("livenessProbe", "readinessProbe"):
        cmd = eng[probe]["exec"]["command"]
        check(arg_after(cmd, "--admin-socket") == admin,
              "engine %s admin socket" % probe)
    # Only the engine mounts the admin folder.
    for c in spec.get("initContainers", []) + spec["containers"]:
        if c["name"] == "podverbsd":
            continue
        for m in c.get("volumeMounts", []):
            check(not m["mountPath"].startswith("/run/podverbs-admin"),
                  "%s mounts the admin socket's folder" % c["name"])
    check(dp_cfg["engineSocket"] == sock, "device plugin engineSocket")
    check(dp_cfg.get("containerEngineDir", os.path.dirname(sock))
          == os.path.dirname(sock), "containerEngineDir")
    conflist = json.loads(cm["data"]["99-podverbs.conflist"])
    nad_conf = json.loads(nad["spec"]["config"])
    for what, cl in (("ConfigMap conflist", conflist), ("NAD", nad_conf)):
        pv = [p for p in cl["plugins"] if p["type"] == "podverbs"]
        check(len(pv) == 1, "%s: one podverbs plugin" % what)
        check(pv[0].get("engineSocket", ENGINE_SOCK) == sock,
              "%s: engineSocket" % what)
        check(cl["plugins"][-1]["type"] == "podverbs",
              "%s: podverbs must come after the plugin making the "
              "interface" % what)
    limits = [d for d in eng["command"] + eng.get("args", [])
              if d.startswith("max_devices=")]
    max_dev = int(limits[0].split("=")[1]) if limits else 1024
    check(dp_cfg["soft"]["count"] <= max_dev,
          "soft.count %d > engine max_devices %d"
          % (dp_cfg["soft"]["count"], max_dev))
    # Resource names: config = NAD annotation = what the pods request.
    check(dp_cfg["soft"]["resourceName"] == RESOURCE, "soft resourceName")
    check(nad["metadata"]["annotations"]
          ["k8s.v1.cni.cncf.io/resourceName"] == RESOURCE,
          "NAD resourceName annotation")
    nad_name = nad["metadata"]["name"]
    check(nad_conf["name"] == nad_name, "NAD config name = object name")
    devname = [p for p in nad_conf["plugins"]
               if p["type"] == "podverbs"][0]["deviceName"]
    for p in pods:
        check(p["metadata"]["namespace"] == nad["metadata"]["namespace"],
              "pod %s not in the NAD's namespace" % p["metadata"]["name"])
        ann = p["metadata"]["annotations"]["k8s.v1.cni.cncf.io/networks"]
        sel = json.loads(ann) if ann.lstrip().startswith("[") else \
            [{"name": n.strip()} for n in ann.split(",")]
        check([s["name"] for s in sel] == [nad_name],
              "pod %s networks %s" % (p["metadata"]["name"], ann))
        c = p["spec"]["containers"][0]
        check(c["resources"]["limits"].get(RESOURCE) == 1,
              "pod %s does not request %s: 1" % (p["metadata"]["name"],
                                                RESOURCE))
        text = " ".join(c["command"])
        check(re.search(r"\bib_write_bw\b[^\n]*\s-d\s+%s(\s|$)"
                        % re.escape(devname), text),
              "pod %s: ib_write_bw -d %s" % (p["metadata"]["name"], devname))
    server = [p for p in pods if p["metadata"]["labels"]["role"] == "server"][0]
    client = [p for p in pods if p["metadata"]["labels"]["role"] == "client"][0]
    srv_ip = json.loads(server["metadata"]["annotations"]
                        ["k8s.v1.cni.cncf.io/networks"])[0]["ips"][0]
    env = {e["name"]: e["value"] for e in client["spec"]["containers"][0]["env"]}
    check(env["SERVER_IP"] == srv_ip.split("/")[0],
          "client SERVER_IP %s, server asks for %s" % (env["SERVER_IP"], srv_ip))
    ok("cross-references: engine socket (engine, probes, device plugin, "
       "CNI configs), soft.count <= max_devices, resource %s in config, NAD "
       "and pods, network name, deviceName %s in ib_write_bw -d, server "
       "address" % (RESOURCE, devname))
    return dp_cfg, conflist, nad_conf


def help_of(path):
    r = run([path, "--help"])
    check(r.returncode == 0, "%s --help: rc %d" % (path, r.returncode))
    return r.stdout


def check_pod_flags(pods):
    exe = shutil.which("ib_write_bw")
    if not exe:
        print("note: ib_write_bw not installed; pod flags not checked")
        return
    h = run([exe, "--help"]).stdout
    for p in pods:
        text = " ".join(p["spec"]["containers"][0]["command"])
        for flag in re.findall(r"(?<!\S)(--?[A-Za-z][\w-]*)", text):
            if flag in ("-c", "-z", "-lt", "-e"):   # sh's own
                continue
            pat = (r"(^|[\s,])%s([\s=,]|$)" % re.escape(flag))
            check(re.search(pat, h, re.M),
                  "pod %s: ib_write_bw has no %s" % (p["metadata"]["name"],
                                                     flag))
    ok("example pods: every ib_write_bw flag is in perftest's --help")


# ---- staging and path mapping -----------------------------------------

def stage_image():
    ctx = os.path.join(TMP, "ctx")
    r = run(["sh", os.path.join(ROOT, "deploy/image/build.sh"),
             "--stage-only", "--stage", ctx, "--build", BUILD], timeout=600)
    check(r.returncode == 0, "build.sh --stage-only:\n" + r.stdout)
    copies = []
    text = open(CONTAINERFILE).read().replace("\\\n", " ")
    for line in text.splitlines():
        w = line.split()
        if not w or w[0].upper() not in ("COPY", "ADD"):
            continue
        args = [a for a in w[1:] if not a.startswith("--")]
        dest, srcs = args[-1], args[:-1]
        for s in srcs:
            check(os.path.exists(os.path.join(ctx, s)),
                  "Containerfile COPY %s: missing in the staged context" % s)
            if len(srcs) > 1 or dest.endswith("/") and not s.endswith("/"):
                copies.append((os.path.join(dest, os.path.basename(s)),
                               os.path.join(ctx, s)))
            else:
                copies.append((dest, os.path.join(ctx, s)))
    check(copies, "Containerfile has no COPY")
    ok("make install DESTDIR staged the image context; all %d COPY "
       "sources exist" % len(copies))
    return ctx, copies


class Mapper:
    """Image and mount paths of one container -> paths in TMP."""

    def __init__(self, copies, c, vols, cm_dir):
        self.pairs = []
        for m in c.get("volumeMounts", []):
            v = vols[m["name"]]
            if "hostPath" in v:
                host = os.path.join(TMP, "h") + v["hostPath"]["path"]
                os.makedirs(host, exist_ok=True)
                self.pairs.append((m["mountPath"], host))
            elif "configMap" in v:
                self.pairs.append((m["mountPath"], cm_dir))
            elif "secret" in v:
                # What the operator creates (deploy/README.md): each
                # item's key holds a fresh random token, mode as asked.
                sec = os.path.join(TMP, "secret", v["secret"]["secretName"])
                os.makedirs(sec, exist_ok=True)
                for it in v["secret"].get("items", []):
                    f = os.path.join(sec, it["path"])
                    with open(f, "w") as out:
                        out.write(os.urandom(24).hex() + "\n")
                    os.chmod(f, v["secret"].get("defaultMode", 0o644))
                self.pairs.append((m["mountPath"], sec))
        for dest, src in copies:
            self.pairs.append((dest.rstrip("/") or "/", src))
        # Longest container path first.
        self.pairs.sort(key=lambda p: -len(p[0]))

    def path(self, p):
        for inside, outside in self.pairs:
            if inside == "/" and p.startswith("/"):
                cand = outside + p
                if os.path.exists(cand):
                    return cand
                continue
            if p == inside or p.startswith(inside + "/"):
                return outside + p[len(inside):]
        return p

    def text(self, s):
        return re.sub(r"(?<![\w.])(/[\w./-]+)", lambda m: self.path(m[1]), s)

    def argv(self, argv):
        return [self.text(a) for a in argv]


def check_binaries(spec, mapper_for):
    """Every program a container runs exists in the staged image and
    its --help names every flag the manifest passes."""
    for c in spec.get("initContainers", []) + spec["containers"]:
        mp = mapper_for(c)
        cmds = [c["command"] + c.get("args", [])]
        for probe in ("livenessProbe", "readinessProbe"):
            if "exec" in c.get(probe, {}):
                cmds.append(c[probe]["exec"]["command"])
        for argv in cmds:
            if argv[0] in ("/bin/sh", "sh") and argv[1] == "-c":
                script = argv[2].replace("\\\n", " ")
                argvs = [shlex.split(ln.strip())[1:] for ln in
                         script.splitlines() if ln.strip().startswith("exec ")]
            else:
                argvs = [argv]
            for a in argvs:
                exe = mp.path(a[0])
                check(os.access(exe, os.X_OK), "%s: %s not in the image"
                      % (c["name"], a[0]))
                h = help_of(exe)
                for w in a[1:]:
                    if w.startswith("-"):
                        check(re.search(r"(^|[\s,[])%s\b" % re.escape(w), h, re.M),
                              "%s: %s --help has no %s" % (c["name"], a[0], w))
                    elif "=" in w and not w.startswith("/"):
                        check(w.split("=")[0] in h, "%s: %s: unknown %s"
                              % (c["name"], a[0], w))
                    elif not w.startswith("/") and w.isalpha():
                        check(re.search(r"\b%s\b" % w, h), "%s: %s: no "
                              "command %s" % (c["name"], a[0], w))
    ok("every container command and exec probe runs a binary present in the "
       "staged image, with flags, limits and subcommands its --help lists")


# ---- dry runs ----------------------------------------------------------

def wait_for(fn, secs, what):
    end = time.time() + secs
    while time.time() < end:
        if fn():
            return
        time.sleep(0.1)
    fail("timed out: " + what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cni_status(plugin_bin, plugin, name, sock):
    conf = dict(plugin, cniVersion="1.1.0", name=name, engineSocket=sock)
    env = dict(os.environ, CNI_COMMAND="STATUS", CNI_PATH="/nonexistent")
    return run([plugin_bin], input=json.dumps(conf), env=env)


def dry_run(spec, vols, mapper_for, cm, dp_cfg, conflist, nad_conf):
    # install-cni, as the init container runs it (no capabilities).
    init = container(spec, "install-cni", init=True)
    mp = mapper_for(init)
    env = dict(os.environ, **{e["name"]: e["value"] for e in init["env"]})
    argv = mp.argv(init["command"])
    r = run(["setpriv", "--bounding-set=-all", "--"] + argv, env=env)
    check(r.returncode == 0, "install-cni init container:\n" + r.stdout)
    cni_bin = mp.path("/host/opt/cni/bin") + "/podverbs"
    check(os.access(cni_bin, os.X_OK), "CNI plugin not installed: " + r.stdout)
    with open(mp.path("/host/etc/cni/net.d") + "/99-podverbs.conflist") as f:
        check(json.load(f) == conflist, "installed conflist differs")
    bad = os.path.join(TMP, "bad.conflist")
    with open(bad, "w") as f:
        f.write(cm["data"]["99-podverbs.conflist"].replace("}", "", 1))
    r2 = run(["sh", os.path.join(ROOT, "deploy/cni/install-cni.sh"), "--bin",
              cni_bin, "--bin-dir", os.path.join(TMP, "x"), "--conf-dir",
              os.path.join(TMP, "y"), "--conflist", bad])
    check(r2.returncode != 0, "install-cni.sh accepted a broken conflist")
    ok("init container: install-cni.sh validated and installed the staged "
       "plugin and the ConfigMap conflist (no capabilities); a broken "
       "conflist is refused")

    # The engine, from the staged image, with its manifest command.
    eng = container(spec, "podverbsd")
    mp = mapper_for(eng)
    caps = eng["securityContext"]["capabilities"].get("add", [])
    bset = "--bounding-set=-all" + "".join(",+" + c.lower() for c in caps)
    env = dict(os.environ, LD_LIBRARY_PATH=mp.path("/usr/local/lib"))
    env.pop("PODVERBS_ENGINE", None)
    log = open(os.path.join(TMP, "engine.log"), "w")
    p = subprocess.Popen(["setpriv", bset, "--"] + mp.argv(eng["command"]),
                         stdout=log, stderr=log, env=env)
    CHILDREN.append(p)
    probe = mp.argv(eng["readinessProbe"]["exec"]["command"])
    wait_for(lambda: p.poll() is None and
             run(probe, env=env).returncode == 0, 10,
             "engine readiness probe; log:\n" +
             open(os.path.join(TMP, "engine.log")).read())
    check(run(mp.argv(eng["livenessProbe"]["exec"]["command"]),
              env=env).returncode == 0, "engine liveness probe")
    host_sock = mp.path(ENGINE_SOCK)
    ok("engine container: started from the staged image under its "
       "capability set (%s); readiness and liveness probes pass"
       % ",".join(caps))

    # The CNI configs parse and reach that engine (STATUS, CNI 1.1.0).
    for what, cl in (("ConfigMap conflist", conflist), ("NAD", nad_conf)):
        pv = [x for x in cl["plugins"] if x["type"] == "podverbs"][0]
        r = cni_status(cni_bin, pv, cl["name"], host_sock)
        check(r.returncode == 0, "%s: CNI STATUS: %s" % (what, r.stdout))
        # Another folder: the plugin talks to the admin socket beside the
        # engine socket's folder, which the live engine has.
        r = cni_status(cni_bin, pv, cl["name"],
                       os.path.join(TMP, "absent", "engine.sock"))
        check(r.returncode != 0 and '"code":\t50' in r.stdout or
              '"code": 50' in r.stdout or '"code":50' in r.stdout,
              "%s: STATUS without engine should be code 50: %s"
              % (what, r.stdout))
    ok("CNI: the podverbs entries of the ConfigMap conflist and the NAD "
       "parse; STATUS succeeds against the engine, code 50 without it")

    # The device plugin with the ConfigMap config, paths mapped.
    dp = container(spec, "device-plugin")
    mp = mapper_for(dp)
    for probe in ("livenessProbe", "readinessProbe"):
        hg = dp[probe]["httpGet"]
        check("%s:%s" % (hg["host"], hg["port"]) == dp_cfg["metricsAddress"],
              "device plugin %s %s:%s, metricsAddress %s" %
              (probe, hg["host"], hg["port"], dp_cfg["metricsAddress"]))
    cfg_path = mp.path(arg_after(dp["command"], "--config"))
    r = run([mp.path(dp["command"][0]), "--check-config", "--config",
             cfg_path])
    check(r.returncode == 0, "--check-config of the ConfigMap config: "
          + r.stdout)
    mapped = {k: (mp.path(v) if isinstance(v, str) and v.startswith("/")
                  else v) for k, v in dp_cfg.items()}
    # Port 9456 may be taken on a test machine: same host, free port.
    port = free_port()
    mapped["metricsAddress"] = "127.0.0.1:%d" % port
    mapped["containerEngineDir"] = dp_cfg["containerEngineDir"]
    mcfg = os.path.join(TMP, "dp.json")
    with open(mcfg, "w") as f:
        json.dump(mapped, f)
    log = open(os.path.join(TMP, "dp.log"), "w")
    p = subprocess.Popen(["setpriv", "--bounding-set=-all", "--",
                          mp.path(dp["command"][0]), "--config", mcfg],
                         stdout=log, stderr=log)
    CHILDREN.append(p)
    url = "http://127.0.0.1:%d%s" % (port, dp["readinessProbe"]["httpGet"]
                                     ["path"])
    body = {}

    def scrape():
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                body["t"] = resp.read().decode()
                return resp.status == 200
        except OSError:
            return False
    wait_for(scrape, 10, "device plugin metrics at %s (rc %s); config %s; "
             "log:\n%s" % (url, p.poll(), json.dumps(mapped),
                           open(os.path.join(TMP, "dp.log")).read()))
    wait_for(lambda: scrape() and re.search(
        r"^podverbs_dp_engine_reachable 1$", body["t"], re.M), 10,
        "podverbs_dp_engine_reachable 1:\n" + body.get("t", ""))
    socks = os.listdir(mp.path("/var/lib/kubelet/plugins_registry"))
    check("podverbs-soft-rdma.sock" in socks,
          "plugin socket in plugins_registry: %s" % socks)
    ok("device plugin: the ConfigMap config passes --check-config; run with "
       "it (no capabilities, host paths mapped) it serves the probe path "
       "%s, reaches the engine and serves podverbs-soft-rdma.sock"
       % dp["readinessProbe"]["httpGet"]["path"])
    caps_out = os.environ.get("PV_CAPS_OUT")
    if caps_out:
        with open(caps_out, "w") as f:
            f.write("\n".join(caps) + "\n")


def main():
    for b in ("podverbsd", "pvctl", "podverbs-device-plugin", "podverbs"):
        if not os.access(os.path.join(BUILD, "bin", b), os.X_OK):
            print("SKIP: %s not built" % b)
            sys.exit(77)
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("SKIP: needs root and setpriv")
        sys.exit(77)
    docs = load_docs()
    ns = one(docs, "podverbs.yaml", "Namespace")
    cm = one(docs, "podverbs.yaml", "ConfigMap")
    ds = one(docs, "podverbs.yaml", "DaemonSet")
    nad = one(docs, "example-network.yaml", "NetworkAttachmentDefinition")
    pods = docs["example-pod.yaml"]
    spec, vols = check_daemonset(ns, cm, ds)
    dp_cfg, conflist, nad_conf = check_cross(cm, spec, nad, pods)
    check_pod_flags(pods)
    ctx, copies = stage_image()
    cm_dir = os.path.join(TMP, "configmap")
    os.makedirs(cm_dir)
    for k, v in cm["data"].items():
        with open(os.path.join(cm_dir, k), "w") as f:
            f.write(v)

    def mapper_for(c):
        return Mapper(copies, c, vols, cm_dir)
    check_binaries(spec, mapper_for)
    dry_run(spec, vols, mapper_for, cm, dp_cfg, conflist, nad_conf)
    cleanup()
    print("PASS")


if __name__ == "__main__":
    main()
