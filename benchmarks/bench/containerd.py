"""containerd 1.6 on a node of the benchmark's own, for measure.py's containerd suite: the same harness as the it
module's containerd tests (its files in it/src/test/containerd: node-mounts.sh, containerd-config.toml,
cni-conf-template.json, busybox-image.sh, cri_client.py), driven from Python.

A node is a network namespace compare.sh created (<tag>-ctrd-<side>) and a private mount namespace in it, held by a
`sleep` (node-mounts.sh: the node's sysfs with the machine's cgroups, /run on a tmpfs, the CNI directories bound from
the node's work directory, /usr/lib/cni masked). containerd, its plugin service (the svc side) and the CRI client's
socket peer run there; the CRI client itself (Debian's Python, grpcio) runs here and times each call. Pods and
containers get cgroups under /<tag>-ctrd-<side>, which stop() removes; compare.sh's cleanup removes whatever a killed
run left (processes in those cgroups and in the node's namespace, the cgroups)."""
import json
import os
import shutil
import subprocess
import time

IMAGE = "localhost/jcni/busybox:1"
NETWORK = "containerd-net"


class NodeFailed(Exception):
    pass


class Node:
    def __init__(self, support, work, netns, cgroup, plugins, env, service_cli=None):
        """support: it/src/test/containerd; work: this node's directory (not under /run, /etc, /opt, /var/lib);
        netns: the node's network namespace (a path); cgroup: the cgroup parent of its pods ("/name"); plugins: the
        directory whose executables go into /opt/cni/bin; env: containerd's environment (its plugins inherit it);
        service_cli: dist/bin/jcni, to run a plugin service in the node (svc side), or None."""
        self.support, self.work, self.netns, self.cgroup = support, work, netns, cgroup
        self.plugins, self.env, self.service_cli = plugins, env, service_cli
        self.holder = self.containerd = self.service = self.client = None
        self.socket = os.path.join(work, "containerd.sock")
        self.service_socket = os.path.join(work, "service", "plugins.sock")

    # ------------------------------------------------------------------------------------------------ start

    def start(self):
        os.makedirs(os.path.join(self.work, "opt-cni-bin"), exist_ok=True)
        for name in sorted(os.listdir(self.plugins)):
            path = os.path.join(self.plugins, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                shutil.copy2(path, os.path.join(self.work, "opt-cni-bin", name))
        with open(os.path.join(self.support, "containerd-config.toml")) as f:
            config = f.read()
        with open(os.path.join(self.work, "config.toml"), "w") as f:
            f.write(config.replace("@DIR@", self.work).replace("@IMAGE@", IMAGE)
                    .replace("@CNI_TEMPLATE@", os.path.join(self.support, "cni-conf-template.json")))
        image = os.path.join(self.work, "image.tar")
        run([os.path.join(self.support, "busybox-image.sh"), image, IMAGE], env=dict(os.environ, TMPDIR=self.work))
        self.holder = subprocess.Popen(
            ["nsenter", f"--net={self.netns}", "unshare", "--mount", "--propagation", "slave",
             os.path.join(self.support, "node-mounts.sh"), self.work, "sh", "-c", "echo ready; exec sleep 2147483647"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        said = self.holder.stdout.readline().strip()
        if said != "ready":
            raise NodeFailed(f"the node's mount namespace could not be set up: {said} {self.holder.stdout.read()}")
        self.containerd = subprocess.Popen(
            self.in_node(["containerd", "--config", os.path.join(self.work, "config.toml")]), env=self.env,
            stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.work, "containerd.log"), "w"),
            stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not (os.path.exists(self.socket) and self.ctr(["version"], check=False).returncode == 0):
            if self.containerd.poll() is not None or time.monotonic() > deadline:
                raise NodeFailed(f"containerd did not start: {self.log()[-3000:]}")
            time.sleep(0.05)
        self.ctr(["-n", "k8s.io", "images", "import", image])
        if self.service_cli:
            os.makedirs(os.path.dirname(self.service_socket), mode=0o700, exist_ok=True)
            # JCNI_DEBUG=1: a line per call in its log, counted against the pods the suite ran.
            self.service = subprocess.Popen(
                self.in_node([self.service_cli, "serve", "--socket", self.service_socket]),
                env=dict(self.env, JCNI_DEBUG="1"), stdin=subprocess.DEVNULL,
                stdout=open(self.service_log_path(), "w"), stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 120
            while not os.path.exists(self.service_socket):
                if self.service.poll() is not None or time.monotonic() > deadline:
                    raise NodeFailed(f"jcni serve did not start in the node: {self.service_log()[-3000:]}")
                time.sleep(0.05)
        self.client = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(self.support, "cri_client.py"), "--socket", self.socket],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        ready = self.client.stdout.readline()
        if not ready or not json.loads(ready).get("ready"):
            raise NodeFailed(f"the CRI client did not start (Debian's python3-grpcio, python3-protobuf): {ready}")
        # containerd renders the example network from the pod CIDR, as a kubelet's first UpdateRuntimeConfig does.
        self.call("UpdateRuntimeConfig", {"runtimeConfig": {"networkConfig": {"podCidr": "10.88.0.0/16"}}})
        deadline = time.monotonic() + 30
        while not self.network_ready():
            if time.monotonic() > deadline:
                raise NodeFailed(f"containerd's network did not become ready: {self.log()[-3000:]}")
            time.sleep(0.1)

    def in_node(self, argv):
        return ["nsenter", "-t", str(self.holder.pid), "-m", "-n"] + argv

    def ctr(self, args, check=True):
        p = subprocess.run(self.in_node(["ctr", "--address", self.socket] + args), capture_output=True, text=True,
                           timeout=120)
        if check and p.returncode != 0:
            raise NodeFailed(f"ctr {' '.join(args)}: exit {p.returncode}: {p.stdout} {p.stderr}")
        return p

    # ------------------------------------------------------------------------------------------------ the CRI

    def call(self, method, request):
        """One CRI call; its response and the wall time of the gRPC call alone (ms). A failure stops the run."""
        self.client.stdin.write(json.dumps({"call": method, "request": request}) + "\n")
        self.client.stdin.flush()
        line = self.client.stdout.readline()
        if not line:
            raise NodeFailed(f"the CRI client ended during {method}")
        answer = json.loads(line)
        if "error" in answer:
            raise NodeFailed(f"CRI {method}: {answer['error']['code']}: {answer['error']['details']}")
        return answer["response"], answer["ns"] / 1e6

    def network_ready(self):
        status, _ = self.call("Status", {})
        return any(c.get("type") == "NetworkReady" and c.get("status") for c in status["status"]["conditions"])

    def pod_config(self, name):
        """A pod on the example network with what the plugins act on: a host port (portmap) and the bandwidth
        annotations (bandwidth)."""
        return {"metadata": {"name": name, "uid": f"uid-{name}", "namespace": "bench"}, "hostname": name,
                "portMappings": [{"protocol": "TCP", "containerPort": 80, "hostPort": 18080}],
                "annotations": {"kubernetes.io/ingress-bandwidth": "100M", "kubernetes.io/egress-bandwidth": "100M"},
                "linux": {"cgroupParent": self.cgroup}}

    def sandboxes(self):
        response, _ = self.call("ListPodSandbox", {})
        return [s["id"] for s in response.get("items", [])]

    # ------------------------------------------------------------------------------------------------ logs

    def log(self):
        with open(os.path.join(self.work, "containerd.log"), errors="replace") as f:
            return f.read()

    def service_log_path(self):
        return os.path.join(self.work, "service.log")

    def service_log(self):
        with open(self.service_log_path(), errors="replace") as f:
            return f.read()

    # ------------------------------------------------------------------------------------------------ stop

    def stop(self):
        """Removes the pods left (none, after a good run), stops the CRI client, the service and containerd, kills what
        is left in the node's mount namespace or in its cgroups (shims, containers), removes the cgroups, ends the
        holder. Raises if a process or cgroup remains."""
        try:
            if self.client and self.client.poll() is None and self.containerd and self.containerd.poll() is None:
                for pod in self.sandboxes():
                    self.call("StopPodSandbox", {"podSandboxId": pod})
                    self.call("RemovePodSandbox", {"podSandboxId": pod})
        finally:
            self.kill_all()

    def kill_all(self):
        if self.client:
            self.client.stdin.close()
            wait(self.client, 10)
        for p in (self.service, self.containerd):
            if p and p.poll() is None:
                p.terminate()
                wait(p, 30)
        if not self.holder:
            return
        mnt = os.readlink(f"/proc/{self.holder.pid}/ns/mnt")
        deadline = time.monotonic() + 30
        while True:
            left = [pid for pid in pids() if pid != self.holder.pid and (namespace_of(pid) == mnt
                                                                          or in_cgroup(pid, self.cgroup))]
            for pid in left:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        # The node's mount namespace has the cgroup hierarchies mounted (`ip netns exec`, which runs measure.py, has
        # not): remove the pods' cgroups from there, deepest first.
        name = self.cgroup.lstrip("/")
        script = (f"for h in /sys/fs/cgroup/*/; do [ -d \"${{h}}{name}\" ] && find \"${{h}}{name}\" -depth -type d "
                  f"-exec rmdir {{}} + 2>/dev/null; [ ! -d \"${{h}}{name}\" ] || echo \"${{h}}{name}\"; done; true")
        for _ in range(50):
            cgroups = subprocess.run(self.in_node(["sh", "-c", script]), capture_output=True, text=True).stdout.split()
            if not cgroups:
                break
            time.sleep(0.1)
        self.holder.kill()
        wait(self.holder, 10)
        if left or cgroups:
            raise NodeFailed(f"the node left processes {left} and cgroups {cgroups}")


def run(argv, env=None):
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        raise NodeFailed(f"{' '.join(argv)}: exit {p.returncode}: {p.stdout} {p.stderr}")
    return p


def wait(process, seconds):
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def namespace_of(pid):
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


def in_cgroup(pid, parent):
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            for line in f:
                path = line.rstrip("\n").split(":", 2)[2]
                if path == parent or path.startswith(parent + "/"):
                    return True
    except (OSError, IndexError):
        pass
    return False
