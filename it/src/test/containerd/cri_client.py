#!/usr/bin/python3
"""A small client of the Kubernetes Container Runtime Interface (CRI, API runtime.v1) for jcni's containerd tests and
benchmark. No CRI API source and no crictl exist on these machines, but containerd's own binary carries the API's
protobuf descriptors: the Go protobuf code registers each .proto file as a gzipped FileDescriptorProto. This client
finds the one of package runtime.v1 in the binary, builds dynamic message classes from it (python3-protobuf's
descriptor pool and message factory) and calls the API over containerd's unix socket (python3-grpcio).

    cri_client.py --socket PATH [--containerd /usr/bin/containerd]

reads one request per line on stdin and answers each with one line on stdout, in JSON:

    {"call": "RunPodSandbox", "request": {...}, "timeout": 120}
    -> {"response": {...}, "ns": 81234567}
    -> {"error": {"code": "UNKNOWN", "details": "failed to setup network for sandbox ..."}, "ns": ...}

"call" names a method of runtime.v1.RuntimeService (RunPodSandbox, StopPodSandbox, RemovePodSandbox,
PodSandboxStatus, ListPodSandbox, CreateContainer, StartContainer, StopContainer, RemoveContainer, ListContainers,
UpdateRuntimeConfig, Status, Version, ...) or, as "ImageService/ListImages", of runtime.v1.ImageService. Requests and
responses are the messages' canonical protobuf JSON (lowerCamelCase field names, enums by name: "protocol": "UDP"),
so the caller writes them as the CRI documentation names the fields. "ns" is the wall time of the gRPC call alone,
measured here (the benchmark's number). Before the first request the client prints {"ready": true, "methods": [...]}.
A broken request line (not JSON, an unknown method) is answered with {"error": {"code": "CLIENT", ...}}; the client
exits when stdin ends.

Run it with Debian's Python (/usr/bin/python3), which has python3-grpcio and python3-protobuf; a Python of its own
(pyenv, a venv) may lack them.
"""
import argparse
import json
import sys
import time
import zlib

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

PACKAGE = "runtime.v1"
GZIP_MAGIC = b"\x1f\x8b\x08"


def cri_descriptor(binary):
    """The FileDescriptorProto of runtime.v1's api.proto, as found gzipped in `binary`."""
    with open(binary, "rb") as f:
        data = f.read()
    at = 0
    while True:
        at = data.find(GZIP_MAGIC, at)
        if at < 0:
            raise SystemExit(f"cri_client: no {PACKAGE} descriptor with services in {binary}")
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[at:at + (4 << 20)])
            file = descriptor_pb2.FileDescriptorProto()
            file.ParseFromString(raw)
        except Exception:  # not a gzip stream, or not a descriptor: keep looking
            file = None
        if file is not None and file.package == PACKAGE and file.service:
            return file
        at += len(GZIP_MAGIC)


def load_services(binary):
    """{"RuntimeService": ServiceDescriptor, "ImageService": ...} and a factory for their messages. The file imports
    gogoproto's options only (code generation hints, kept as unknown option fields): the import is dropped so that
    the pool needs nothing else."""
    file = cri_descriptor(binary)
    del file.dependency[:]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    services = {s.name: pool.FindServiceByName(f"{PACKAGE}.{s.name}") for s in file.service}
    return services, message_factory.MessageFactory(pool)


class Client:
    def __init__(self, socket, binary):
        self.services, self.factory = load_services(binary)
        self.channel = grpc.insecure_channel(f"unix://{socket}")
        self.stubs = {}

    def methods(self):
        return [f"{s}/{m.name}" for s, d in self.services.items() for m in d.methods]

    def stub(self, call):
        service, _, method = call.rpartition("/")
        service = service or "RuntimeService"
        key = (service, method)
        if key not in self.stubs:
            if service not in self.services or method not in self.services[service].methods_by_name:
                raise KeyError(f"no method {service}/{method} in {PACKAGE}")
            m = self.services[service].methods_by_name[method]
            request = self.factory.GetPrototype(m.input_type)
            response = self.factory.GetPrototype(m.output_type)
            self.stubs[key] = (request, self.channel.unary_unary(
                f"/{PACKAGE}.{service}/{method}", request_serializer=request.SerializeToString,
                response_deserializer=response.FromString))
        return self.stubs[key]

    def answer(self, line):
        try:
            ask = json.loads(line)
            request_class, stub = self.stub(ask["call"])
            request = json_format.ParseDict(ask.get("request", {}), request_class())
        except (ValueError, KeyError, TypeError, json_format.ParseError) as e:
            return {"error": {"code": "CLIENT", "details": f"{type(e).__name__}: {e}"}}
        start = time.perf_counter_ns()
        try:
            response = stub(request, timeout=ask.get("timeout", 120))
        except grpc.RpcError as e:
            return {"error": {"code": e.code().name, "details": e.details()}, "ns": time.perf_counter_ns() - start}
        ns = time.perf_counter_ns() - start
        return {"response": json_format.MessageToDict(response), "ns": ns}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--socket", required=True, help="containerd's gRPC socket")
    p.add_argument("--containerd", default="/usr/bin/containerd", help="the binary to read the CRI API from")
    a = p.parse_args()
    client = Client(a.socket, a.containerd)
    print(json.dumps({"ready": True, "methods": client.methods()}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(client.answer(line)), flush=True)


if __name__ == "__main__":
    main()
