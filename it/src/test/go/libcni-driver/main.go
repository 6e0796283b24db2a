// libcni-driver is jcni's Go peer in interop tests and benchmarks: a cnitool-like program built against the Go
// libcni that Debian ships (golang-github-appc-cni-dev), so that tests can compare what jcni does with what libcni
// does on the same machine, with the same plugins, the same cache directory and the same configuration files.
//
// Output contract (the Java side in it/src/test/java/io/jcni/it/support/LibcniDriver.java relies on it):
//   - stdout carries exactly one JSON document, on success and on failure;
//   - exit 0: success; the document is the command's answer (see usage below);
//   - exit 1: a libcni or plugin error; the document is {"error": err.Error(), "cniError": {code,msg,details}?},
//     where "error" is libcni's error text verbatim and "cniError" is present when a plugin's CNI error is in the chain;
//   - exit 2: bad command line; the document is {"error": "...", "usage": "..."};
//   - stderr carries only what plugins wrote to their stderr (libcni passes it through on success).
package main

import (
	"context"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/ioutil"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/types"
	"github.com/containernetworking/cni/pkg/types/create"
	"github.com/containernetworking/cni/pkg/version"
)

const usage = `usage:
  libcni-driver add|check|del [flags] <conf-or-conflist-file> <netns-path>
  libcni-driver version [--cni-path P] [--timeout D] <plugin-type>
  libcni-driver validate [--cni-path P] [--timeout D] <conf-or-conflist-file>
  libcni-driver cached-result|cached-config [flags] <conf-or-conflist-file|network-name> [<netns-path>]
  libcni-driver bench-exec --plugin <type> --n N [--command VERSION|ADD|CHECK|DEL] [--conf F] [flags]
  libcni-driver convert --to V <result-file>

flags:
  --cni-path P        plugin directories, ':'-separated (default: $CNI_PATH)
  --cache-dir D       libcni cache directory (default: libcni's /var/lib/cni)
  --container-id ID   default: cnitool's, "cnitool-" + hex of the first 10 bytes of sha512(netns-path)
  --ifname NAME       default: eth0
  --cni-args S        CNI_ARGS as "K=V;K2=V2"
  --cap-args JSON     capability arguments, a JSON object
  --timeout D         per-command deadline (Go duration, e.g. 2s); on expiry libcni kills the plugin; default none
  --cni-version V     cached-result with a network name: the version to convert the cached result to (default 1.0.0)
  --n N, --warmup W   bench-exec: measured and unmeasured calls (default warmup 0)
  --level L           bench-exec: "invoke" (find + exec + decode, default) or "libcni" (the list API, with cache)
  --netns P           bench-exec: the netns path passed to ADD/CHECK/DEL (required for those)
  --to V              convert: the version to convert the result to

success output: add: the result JSON; check/del: {}; version: the plugin's version info; validate:
{"capabilities":[...]} sorted; cached-result: the result converted to the list's version, or null when no cache file;
cached-config: {"config": "<cached config bytes>", "containerId", "netns", "ifName", "cniArgs", "capabilityArgs"} or
null; bench-exec: {"plugin","command","level","n","warmup","durationsNs":[...],"medianNs","minNs","maxNs","meanNs"};
convert: the result as libcni's create.CreateFromBytes reads it and GetAsVersion converts it, as json.Marshal
prints it.`

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...interface{}) error { return usageError{fmt.Sprintf(format, a...)} }

// options holds every flag; each subcommand reads the ones it documents.
type options struct {
	cniPath     string
	cacheDir    string
	containerID string
	ifName      string
	cniArgs     string
	capArgs     string
	timeout     time.Duration
	cniVersion  string
	plugin      string
	n           int
	warmup      int
	command     string
	conf        string
	level       string
	netns       string
	to          string
}

// parseArgs accepts flags before, between and after positional arguments (Go's flag package stops at the first
// positional one, which would make "add conf netns --ifname x" silently ignore the flag).
func parseArgs(name string, args []string) (*options, []string, error) {
	o := &options{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(ioutil.Discard)
	fs.StringVar(&o.cniPath, "cni-path", os.Getenv("CNI_PATH"), "")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "")
	fs.StringVar(&o.containerID, "container-id", "", "")
	fs.StringVar(&o.ifName, "ifname", "eth0", "")
	fs.StringVar(&o.cniArgs, "cni-args", "", "")
	fs.StringVar(&o.capArgs, "cap-args", "", "")
	fs.DurationVar(&o.timeout, "timeout", 0, "")
	fs.StringVar(&o.cniVersion, "cni-version", "1.0.0", "")
	fs.StringVar(&o.plugin, "plugin", "", "")
	fs.IntVar(&o.n, "n", 0, "")
	fs.IntVar(&o.warmup, "warmup", 0, "")
	fs.StringVar(&o.command, "command", "VERSION", "")
	fs.StringVar(&o.conf, "conf", "", "")
	fs.StringVar(&o.level, "level", "invoke", "")
	fs.StringVar(&o.netns, "netns", "", "")
	fs.StringVar(&o.to, "to", "", "")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, usagef("%s: %v", name, err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return o, positional, nil
}

func (o *options) paths() []string {
	if o.cniPath == "" {
		return nil
	}
	return filepath.SplitList(o.cniPath)
}

func (o *options) context() (context.Context, context.CancelFunc) {
	if o.timeout > 0 {
		return context.WithTimeout(context.Background(), o.timeout)
	}
	return context.WithCancel(context.Background())
}

func (o *options) cniConfig() *libcni.CNIConfig {
	return libcni.NewCNIConfigWithCacheDir(o.paths(), o.cacheDir, nil)
}

// runtimeConf builds libcni's RuntimeConf the way cnitool does, including its container ID derivation.
func (o *options) runtimeConf(netns string) (*libcni.RuntimeConf, error) {
	rt := &libcni.RuntimeConf{ContainerID: o.containerID, NetNS: netns, IfName: o.ifName}
	if rt.ContainerID == "" {
		if netns == "" {
			return nil, usagef("--container-id or a netns path is required")
		}
		abs, err := filepath.Abs(netns)
		if err != nil {
			return nil, err
		}
		sum := sha512.Sum512([]byte(abs))
		rt.ContainerID = fmt.Sprintf("cnitool-%x", sum[:10])
	}
	if o.cniArgs != "" {
		for _, pair := range strings.Split(o.cniArgs, ";") {
			kv := strings.SplitN(pair, "=", 2)
			if len(kv) != 2 {
				return nil, usagef("--cni-args: %q is not K=V", pair)
			}
			rt.Args = append(rt.Args, [2]string{kv[0], kv[1]})
		}
	}
	if o.capArgs != "" {
		if err := json.Unmarshal([]byte(o.capArgs), &rt.CapabilityArgs); err != nil {
			return nil, usagef("--cap-args: not a JSON object: %v", err)
		}
	}
	return rt, nil
}

// loadList reads a .conflist, or a single plugin .conf wrapped into a list, as cnitool's LoadConfList does.
func loadList(file string) (*libcni.NetworkConfigList, error) {
	bytes, err := ioutil.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(bytes, &probe); err == nil {
		if _, isList := probe["plugins"]; !isList {
			conf, err := libcni.ConfFromBytes(bytes)
			if err != nil {
				return nil, err
			}
			return libcni.ConfListFromConf(conf)
		}
	}
	return libcni.ConfListFromBytes(bytes)
}

func main() {
	if len(os.Args) < 2 {
		os.Exit(emit(nil, usagef("no subcommand")))
	}
	answer, err := run(os.Args[1], os.Args[2:])
	os.Exit(emit(answer, err))
}

func run(sub string, args []string) (interface{}, error) {
	o, pos, err := parseArgs(sub, args)
	if err != nil {
		return nil, err
	}
	switch sub {
	case "add", "check", "del":
		if len(pos) != 2 {
			return nil, usagef("%s needs <conf-or-conflist-file> <netns-path>, got %d arguments", sub, len(pos))
		}
		return attach(sub, o, pos[0], pos[1])
	case "version":
		if len(pos) != 1 {
			return nil, usagef("version needs <plugin-type>")
		}
		ctx, cancel := o.context()
		defer cancel()
		return o.cniConfig().GetVersionInfo(ctx, pos[0])
	case "validate":
		if len(pos) != 1 {
			return nil, usagef("validate needs <conf-or-conflist-file>")
		}
		return validate(o, pos[0])
	case "cached-result", "cached-config":
		if len(pos) < 1 || len(pos) > 2 {
			return nil, usagef("%s needs <conf-or-conflist-file|network-name> [<netns-path>]", sub)
		}
		return cached(sub, o, pos)
	case "bench-exec":
		if len(pos) != 0 {
			return nil, usagef("bench-exec takes flags only, got %q", pos)
		}
		return benchExec(o)
	case "convert":
		if len(pos) != 1 || o.to == "" {
			return nil, usagef("convert needs --to <version> <result-file>")
		}
		return convertResult(pos[0], o.to)
	case "help", "--help", "-h":
		fmt.Fprintln(os.Stderr, usage)
		return struct{}{}, nil
	default:
		return nil, usagef("unknown subcommand %q", sub)
	}
}

func attach(sub string, o *options, file, netns string) (interface{}, error) {
	list, err := loadList(file)
	if err != nil {
		return nil, err
	}
	rt, err := o.runtimeConf(netns)
	if err != nil {
		return nil, err
	}
	ctx, cancel := o.context()
	defer cancel()
	cni := o.cniConfig()
	switch sub {
	case "add":
		return cni.AddNetworkList(ctx, list, rt)
	case "check":
		return struct{}{}, cni.CheckNetworkList(ctx, list, rt)
	default:
		return struct{}{}, cni.DelNetworkList(ctx, list, rt)
	}
}

func validate(o *options, file string) (interface{}, error) {
	list, err := loadList(file)
	if err != nil {
		return nil, err
	}
	ctx, cancel := o.context()
	defer cancel()
	caps, err := o.cniConfig().ValidateNetworkList(ctx, list)
	if err != nil {
		return nil, err
	}
	sort.Strings(caps)
	return map[string]interface{}{"capabilities": caps}, nil
}

type cachedConfig struct {
	Config         string                 `json:"config"`
	ContainerID    string                 `json:"containerId"`
	NetNS          string                 `json:"netns"`
	IfName         string                 `json:"ifName"`
	CniArgs        [][2]string            `json:"cniArgs"`
	CapabilityArgs map[string]interface{} `json:"capabilityArgs"`
}

// cached reads what an earlier ADD left in the cache directory, by libcni's own code. A network name (not a file)
// is accepted so that a test can read a cache entry whose configuration file it no longer has.
func cached(sub string, o *options, pos []string) (interface{}, error) {
	var list *libcni.NetworkConfigList
	if _, statErr := os.Stat(pos[0]); statErr == nil {
		l, err := loadList(pos[0])
		if err != nil {
			return nil, err
		}
		list = l
	} else {
		list = &libcni.NetworkConfigList{Name: pos[0], CNIVersion: o.cniVersion}
	}
	netns := ""
	if len(pos) == 2 {
		netns = pos[1]
	}
	rt, err := o.runtimeConf(netns)
	if err != nil {
		return nil, err
	}
	cni := o.cniConfig()
	if sub == "cached-result" {
		result, err := cni.GetNetworkListCachedResult(list, rt)
		if err != nil || result == nil {
			return nil, err // nil, nil: libcni found no cache file; printed as null
		}
		return result, nil
	}
	bytes, cachedRt, err := cni.GetNetworkListCachedConfig(list, rt)
	if err != nil || cachedRt == nil {
		return nil, err
	}
	return &cachedConfig{
		Config:         string(bytes),
		ContainerID:    cachedRt.ContainerID,
		NetNS:          cachedRt.NetNS,
		IfName:         cachedRt.IfName,
		CniArgs:        cachedRt.Args,
		CapabilityArgs: cachedRt.CapabilityArgs,
	}, nil
}

// convertResult is what a Go runtime does with a result it holds: read it by its own cniVersion and convert it.
func convertResult(file, to string) (interface{}, error) {
	bytes, err := ioutil.ReadFile(file)
	if err != nil {
		return nil, err
	}
	result, err := create.CreateFromBytes(bytes)
	if err != nil {
		return nil, err
	}
	return result.GetAsVersion(to)
}

type benchReport struct {
	Plugin      string  `json:"plugin"`
	Command     string  `json:"command"`
	Level       string  `json:"level"`
	N           int     `json:"n"`
	Warmup      int     `json:"warmup"`
	DurationsNs []int64 `json:"durationsNs"`
	MedianNs    int64   `json:"medianNs"`
	MinNs       int64   `json:"minNs"`
	MaxNs       int64   `json:"maxNs"`
	MeanNs      int64   `json:"meanNs"`
}

// benchExec times whole plugin calls as a runtime makes them through libcni. Level "invoke" is one plugin exec
// (FindInPath + spawn + pipes + decoding the answer: libcni's per-exec overhead plus the plugin's own run time);
// level "libcni" is the list API (config injection, cache read/write around the exec) on the --conf list.
func benchExec(o *options) (interface{}, error) {
	cmd := strings.ToUpper(o.command)
	if o.n <= 0 {
		return nil, usagef("bench-exec needs --n > 0")
	}
	if o.level != "invoke" && o.level != "libcni" {
		return nil, usagef("--level must be invoke or libcni, got %q", o.level)
	}
	call, err := benchCall(o, cmd)
	if err != nil {
		return nil, err
	}
	for i := 0; i < o.warmup; i++ {
		if err := call(); err != nil {
			return nil, fmt.Errorf("warm-up call %d: %w", i+1, err)
		}
	}
	report := &benchReport{Plugin: o.plugin, Command: cmd, Level: o.level, N: o.n, Warmup: o.warmup}
	for i := 0; i < o.n; i++ {
		start := time.Now()
		if err := call(); err != nil {
			return nil, fmt.Errorf("call %d: %w", i+1, err)
		}
		report.DurationsNs = append(report.DurationsNs, time.Since(start).Nanoseconds())
	}
	sorted := append([]int64(nil), report.DurationsNs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var sum int64
	for _, d := range sorted {
		sum += d
	}
	report.MinNs, report.MaxNs, report.MeanNs = sorted[0], sorted[len(sorted)-1], sum/int64(len(sorted))
	if len(sorted)%2 == 1 {
		report.MedianNs = sorted[len(sorted)/2]
	} else {
		report.MedianNs = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	return report, nil
}

func benchCall(o *options, cmd string) (func() error, error) {
	cni := o.cniConfig()
	exec := &invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: os.Stderr}}
	if cmd == "VERSION" {
		if o.plugin == "" {
			return nil, usagef("bench-exec VERSION needs --plugin")
		}
		return func() error {
			ctx, cancel := o.context()
			defer cancel()
			_, err := cni.GetVersionInfo(ctx, o.plugin)
			return err
		}, nil
	}
	if cmd != "ADD" && cmd != "CHECK" && cmd != "DEL" {
		return nil, usagef("--command must be VERSION, ADD, CHECK or DEL, got %q", cmd)
	}
	if o.conf == "" || o.netns == "" {
		return nil, usagef("bench-exec %s needs --conf and --netns", cmd)
	}
	rt, err := o.runtimeConf(o.netns)
	if err != nil {
		return nil, err
	}
	if o.level == "libcni" {
		list, err := loadList(o.conf)
		if err != nil {
			return nil, err
		}
		return func() error {
			ctx, cancel := o.context()
			defer cancel()
			switch cmd {
			case "ADD":
				_, err := cni.AddNetworkList(ctx, list, rt)
				return err
			case "CHECK":
				return cni.CheckNetworkList(ctx, list, rt)
			default:
				return cni.DelNetworkList(ctx, list, rt)
			}
		}, nil
	}
	if o.plugin == "" {
		return nil, usagef("bench-exec --level invoke needs --plugin")
	}
	stdin, err := ioutil.ReadFile(o.conf)
	if err != nil {
		return nil, err
	}
	return func() error {
		ctx, cancel := o.context()
		defer cancel()
		path, err := invoke.FindInPath(o.plugin, o.paths())
		if err != nil {
			return err
		}
		args := &invoke.Args{Command: cmd, ContainerID: rt.ContainerID, NetNS: rt.NetNS, PluginArgs: rt.Args,
			IfName: rt.IfName, Path: o.cniPath}
		if cmd == "ADD" {
			_, err = invoke.ExecPluginWithResult(ctx, path, stdin, args, exec)
		} else {
			err = invoke.ExecPluginWithoutResult(ctx, path, stdin, args, exec)
		}
		return err
	}, nil
}

// emit prints the one JSON document of the output contract and returns the exit code.
func emit(answer interface{}, err error) int {
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	if err == nil {
		if answer == nil {
			fmt.Fprintln(os.Stdout, "null")
			return 0
		}
		if info, ok := answer.(version.PluginInfo); ok {
			if encErr := info.Encode(os.Stdout); encErr != nil {
				return emit(nil, encErr)
			}
			return 0
		}
		if encErr := out.Encode(answer); encErr != nil {
			return emit(nil, encErr)
		}
		return 0
	}
	doc := map[string]interface{}{"error": err.Error()}
	var cniErr *types.Error
	if errors.As(err, &cniErr) {
		doc["cniError"] = cniErr
	}
	code := 1
	var uerr usageError
	if errors.As(err, &uerr) {
		doc["usage"] = usage
		code = 2
	}
	if encErr := out.Encode(doc); encErr != nil {
		_, _ = io.WriteString(os.Stderr, "libcni-driver: cannot print error: "+encErr.Error()+"\n")
	}
	return code
}
