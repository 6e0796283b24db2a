// trivial-plugin is a CNI plugin that touches nothing: it answers VERSION, and ADD with a fixed valid result, and
// CHECK/DEL/GC/STATUS with success, converting the result to the configuration's cniVersion with Debian's libcni
// types. It exists so that jcni's runtime and Go libcni can be compared on the same binary: in failure-path tests
// (each failure mode below) and in the exec-overhead benchmark (where the plugin's own work must be negligible).
//
// Behaviour is chosen per call by an environment variable, or per plugin of a list by a configuration key (the key
// wins; VERSION has no configuration, so only the variable applies to it):
//
//	JCNI_TRIVIAL_MODE       / "mode"        one of the modes below (default ok)
//	JCNI_TRIVIAL_MODE_ON    / "modeOn"      commands the mode applies to, e.g. "ADD,CHECK" (default: all); the other
//	                                        commands behave as in mode ok
//	JCNI_TRIVIAL_ERROR_CODE / "errorCode"   the CNI error code of mode error (default 100)
//	JCNI_TRIVIAL_SLEEP_MS   / "sleepMs"     sleep this long before answering (any mode)
//	                          "modeFile"    the mode is this file's content (trimmed) while the file exists, and
//	                                        ok while it does not: a switch that holds for every process that runs the
//	                                        plugin, whatever its environment, and for configurations already cached
//	JCNI_TRIVIAL_RECORD     / "recordFile"  append one JSON line per call: {"command","env":{CNI_*},"stdin"}, written
//	                                        before the mode acts, so a crashed or hung call is recorded too
//	                          "rawResult"   ADD prints this JSON as it is (a result that breaks the spec the way
//	                                        third-party plugins' results do), instead of computing one
//
// Modes: ok; crash (SIGKILL to itself, no output); hang (sleeps until killed); garbage (non-JSON on stdout, exit 1);
// garbage-exit0 (non-JSON on stdout, exit 0); error (the spec's error JSON on stdout, exit 1); stderr-only (a message
// on stderr only, exit 1); empty-exit0 (no output, exit 0); empty-exit1 (no output, exit 1); noisy (ok, plus a line
// on stderr).
//
// ADD with a prevResult passes it through unchanged, as a well-behaved chained plugin; without one it returns
// interface CNI_IFNAME in CNI_NETNS with 192.0.2.10/24 (TEST-NET-1) via 192.0.2.1, a default route and one
// nameserver. Versions: 0.1.0 to 1.0.0 as Debian's libcni implements them, and 1.1.0 (the 1.0.0 result shape, which
// 1.1.0 only extends).
package main

import (
	"encoding/json"
	"fmt"
	"io/ioutil"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/types/create"
)

// GarbageOutput is what modes garbage and garbage-exit0 print; tests match libcni's error text against it.
const GarbageOutput = "trivial-plugin: this is not JSON {"

var supported = []string{"0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"}

type settings struct {
	mode      string
	modeOn    string
	errorCode uint
	sleepMs   int
	record    string
}

// netConf holds the keys this plugin reads; everything else in the configuration is ignored.
type netConf struct {
	CNIVersion    string                 `json:"cniVersion"`
	RawPrevResult map[string]interface{} `json:"prevResult"`
	Mode          *string                `json:"mode"`
	ModeOn        interface{}            `json:"modeOn"`
	ErrorCode     *uint                  `json:"errorCode"`
	SleepMs       *int                   `json:"sleepMs"`
	RecordFile    *string                `json:"recordFile"`
	ModeFile      *string                `json:"modeFile"`
	RawResult     json.RawMessage        `json:"rawResult"`
}

func main() {
	command := os.Getenv("CNI_COMMAND")
	stdin, _ := ioutil.ReadAll(os.Stdin)
	conf := &netConf{}
	confErr := error(nil)
	if len(stdin) > 0 {
		confErr = json.Unmarshal(stdin, conf)
	}
	s := settingsFrom(conf)
	record(s.record, command, stdin)
	if s.sleepMs > 0 {
		time.Sleep(time.Duration(s.sleepMs) * time.Millisecond)
	}
	if s.appliesTo(command) {
		failAsRequested(s, command, conf.CNIVersion)
	}
	if confErr != nil && command != "VERSION" {
		fail(conf.CNIVersion, types.ErrDecodingFailure, "trivial-plugin: cannot decode configuration", confErr.Error())
	}
	switch command {
	case "VERSION":
		v := conf.CNIVersion
		if v == "" {
			v = "1.0.0"
		}
		printJSON(map[string]interface{}{"cniVersion": v, "supportedVersions": supported})
	case "ADD":
		requireEnv(conf.CNIVersion, "CNI_CONTAINERID", "CNI_IFNAME", "CNI_NETNS")
		if len(conf.RawResult) > 0 {
			checkVersion(conf.CNIVersion)
			_, _ = os.Stdout.Write(conf.RawResult)
			os.Exit(0)
		}
		add(conf)
	case "CHECK", "DEL":
		requireEnv(conf.CNIVersion, "CNI_CONTAINERID", "CNI_IFNAME")
		checkVersion(conf.CNIVersion)
	case "GC", "STATUS":
		checkVersion(conf.CNIVersion)
	default:
		fail(conf.CNIVersion, types.ErrInvalidEnvironmentVariables, fmt.Sprintf("unknown CNI_COMMAND: %v", command), "")
	}
}

func settingsFrom(conf *netConf) settings {
	s := settings{mode: os.Getenv("JCNI_TRIVIAL_MODE"), modeOn: os.Getenv("JCNI_TRIVIAL_MODE_ON"), errorCode: 100,
		record: os.Getenv("JCNI_TRIVIAL_RECORD")}
	if v, err := strconv.ParseUint(os.Getenv("JCNI_TRIVIAL_ERROR_CODE"), 10, 32); err == nil {
		s.errorCode = uint(v)
	}
	if v, err := strconv.Atoi(os.Getenv("JCNI_TRIVIAL_SLEEP_MS")); err == nil {
		s.sleepMs = v
	}
	if conf.Mode != nil {
		s.mode = *conf.Mode
	}
	switch on := conf.ModeOn.(type) {
	case string:
		s.modeOn = on
	case []interface{}:
		var names []string
		for _, n := range on {
			names = append(names, fmt.Sprint(n))
		}
		s.modeOn = strings.Join(names, ",")
	}
	if conf.ErrorCode != nil {
		s.errorCode = *conf.ErrorCode
	}
	if conf.SleepMs != nil {
		s.sleepMs = *conf.SleepMs
	}
	if conf.RecordFile != nil {
		s.record = *conf.RecordFile
	}
	if conf.ModeFile != nil {
		s.mode = "ok"
		if b, err := ioutil.ReadFile(*conf.ModeFile); err == nil {
			s.mode = strings.TrimSpace(string(b))
		}
	}
	if s.mode == "" {
		s.mode = "ok"
	}
	return s
}

func (s settings) appliesTo(command string) bool {
	if s.modeOn == "" {
		return true
	}
	for _, c := range strings.Split(s.modeOn, ",") {
		if strings.EqualFold(strings.TrimSpace(c), command) {
			return true
		}
	}
	return false
}

// failAsRequested carries out the failure modes; it returns only for ok and noisy.
func failAsRequested(s settings, command, cniVersion string) {
	switch s.mode {
	case "ok":
	case "noisy":
		fmt.Fprintf(os.Stderr, "trivial-plugin: noisy %s\n", command)
	case "crash":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		hang()
	case "hang":
		hang()
	case "garbage", "garbage-exit0":
		fmt.Fprint(os.Stdout, GarbageOutput)
		exit(s.mode == "garbage")
	case "error":
		fail(cniVersion, s.errorCode, "trivial-plugin: failure requested", "mode=error command="+command)
	case "stderr-only":
		fmt.Fprintf(os.Stderr, "trivial-plugin: failure requested (mode=stderr-only command=%s)\n", command)
		os.Exit(1)
	case "empty-exit0", "empty-exit1":
		exit(s.mode == "empty-exit1")
	default:
		fail(cniVersion, types.ErrInvalidNetworkConfig, fmt.Sprintf("trivial-plugin: unknown mode %q", s.mode), "")
	}
}

func hang() {
	for {
		time.Sleep(time.Hour)
	}
}

func exit(failed bool) {
	if failed {
		os.Exit(1)
	}
	os.Exit(0)
}

func requireEnv(cniVersion string, names ...string) {
	var missing []string
	for _, n := range names {
		if os.Getenv(n) == "" {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		fail(cniVersion, types.ErrInvalidEnvironmentVariables,
			fmt.Sprintf("required env variables [%s] missing", strings.Join(missing, ",")), "")
	}
}

func checkVersion(v string) {
	for _, s := range supported {
		if s == v {
			return
		}
	}
	fail(v, types.ErrIncompatibleCNIVersion, "incompatible CNI versions",
		fmt.Sprintf("config is %q, plugin supports %q", v, supported))
}

func add(conf *netConf) {
	checkVersion(conf.CNIVersion)
	// Debian's libcni predates 1.1.0, whose result is the 1.0.0 shape with optional extra fields.
	target := conf.CNIVersion
	if target == "1.1.0" {
		target = "1.0.0"
	}
	var result types.Result
	if conf.RawPrevResult != nil {
		raw := conf.RawPrevResult
		raw["cniVersion"] = target
		bytes, err := json.Marshal(raw)
		if err == nil {
			result, err = create.Create(target, bytes)
		}
		if err != nil {
			fail(conf.CNIVersion, types.ErrDecodingFailure, "trivial-plugin: cannot parse prevResult", err.Error())
		}
	} else {
		result = fixedResult()
	}
	converted, err := result.GetAsVersion(target)
	if err != nil {
		fail(conf.CNIVersion, types.ErrIncompatibleCNIVersion, "trivial-plugin: cannot convert result", err.Error())
	}
	bytes, err := json.Marshal(converted)
	if err != nil {
		fail(conf.CNIVersion, types.ErrInternal, "trivial-plugin: cannot encode result", err.Error())
	}
	var out map[string]interface{}
	_ = json.Unmarshal(bytes, &out)
	out["cniVersion"] = conf.CNIVersion
	printJSON(out)
}

func fixedResult() *types100.Result {
	zero := 0
	gw := net.ParseIP("192.0.2.1")
	return &types100.Result{
		CNIVersion: types100.ImplementedSpecVersion,
		Interfaces: []*types100.Interface{{Name: os.Getenv("CNI_IFNAME"), Mac: "02:00:00:00:00:0a",
			Sandbox: os.Getenv("CNI_NETNS")}},
		IPs: []*types100.IPConfig{{Interface: &zero,
			Address: net.IPNet{IP: net.ParseIP("192.0.2.10").To4(), Mask: net.CIDRMask(24, 32)}, Gateway: gw}},
		Routes: []*types.Route{{Dst: net.IPNet{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)}, GW: gw}},
		DNS:    types.DNS{Nameservers: []string{"192.0.2.53"}},
	}
}

func record(file, command string, stdin []byte) {
	if file == "" {
		return
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CNI_") {
			parts := strings.SplitN(kv, "=", 2)
			env[parts[0]] = parts[1]
		}
	}
	line, _ := json.Marshal(map[string]interface{}{"command": command, "env": env, "stdin": string(stdin)})
	// One write(2) per line on an O_APPEND file: lines of concurrent calls do not interleave on a local filesystem.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fail("", types.ErrIOFailure, "trivial-plugin: cannot open record file", err.Error())
	}
	_, _ = f.Write(append(line, '\n'))
	_ = f.Close()
}

func printJSON(v interface{}) {
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		os.Exit(1)
	}
}

// fail prints the spec's error JSON on stdout and exits 1.
func fail(cniVersion string, code uint, msg, details string) {
	doc := map[string]interface{}{"code": code, "msg": msg}
	if cniVersion != "" {
		doc["cniVersion"] = cniVersion
	}
	if details != "" {
		doc["details"] = details
	}
	printJSON(doc)
	os.Exit(1)
}
