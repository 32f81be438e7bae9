//go:build unix

// Command loadtest measures the server as a Host meets it: the built
// binary over loopback HTTP, in front of the Doris simulator (a separate
// process) over a throwaway MariaDB.
//
//	go run ./doris/dorissim/loadtest                     # build HEAD's server and measure it
//	go run ./doris/dorissim/loadtest -bin old=/tmp/a,new=/tmp/b -duration 10s
//	go run ./doris/dorissim/loadtest -mode load|soak|fault [-duration D] [-json]
//
// For each server binary it reports, for tools/call execute_query
// "SELECT 1": the server's CPU per call (from /proc, the server process
// only), requests per second and p50/p99 latency at c=1 and c=32, resident
// memory idle and under c=64, and the cold start (process start to the
// tools/list answer over stdio, and exit). It reports the same figures for
// the raw go-sql-driver on the same path (client -> simulator -> MariaDB),
// so the server's overhead is a ratio measured in one run, and for the
// transport floor (floor.go: net/http and the driver with no MCP work), so
// the overhead splits into what HTTP costs and what the server adds.
//
// Numbers depend on the machine and what else runs on it: compare binaries
// within one run, never against a threshold.
//
// The other modes judge one server binary (HEAD's, or the first of -bin)
// against the acceptance figures and exit 2 when a check fails:
//
//   - load (load.go): 64 clients of execute_query for -duration (60 s) on
//     default settings: errors, the RSS curve, goroutines back to
//     baseline, nothing left running in MariaDB; then 20 slow queries
//     held in the simulator while SELECT 1's p99 and /ready are timed.
//   - soak (soak.go): a steady mixed workload for -duration (10 min),
//     every answer classified as expected or not; RSS, goroutines and fds
//     at start, after warm-up and at the end.
//   - fault (fault.go): under a steady load, the simulator killed and
//     restarted, frozen for 15 s, MariaDB restarted, a BE's HTTP port
//     dead: errors and their codes, time to recover, hung calls.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

func main() {
	if os.Getenv(floorEnv) != "" {
		fmt.Fprintln(os.Stderr, floorServer())
		os.Exit(1)
	}
	bins := flag.String("bin", "", "server binaries to measure, name=path[@VAR=value...],... (default: build the working tree as \"head\")")
	mode := flag.String("mode", "bench", "bench, load, soak or fault")
	duration := flag.Duration("duration", 0, "length of each measured phase (bench: 10s), of the load (load: 60s), of the soak (soak: 10m); fault: how long each fault lasts (15s)")
	warmup := flag.Duration("warmup", 2*time.Second, "unmeasured load before each phase")
	profile := flag.String("profile", "3.0", "simulated Doris release")
	cold := flag.Int("cold", 21, "cold starts to time per binary (0: skip)")
	asJSON := flag.Bool("json", false, "print the results as JSON")
	serverLog := flag.String("server-log", "", "load, soak, fault: also write the server's log to this file")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *mode != "bench" {
		os.Exit(runMode(ctx, log, *mode, *bins, *duration, *asJSON, *serverLog))
	}
	if *duration == 0 {
		*duration = 10 * time.Second
	}
	res, err := run(ctx, log, *bins, *profile, *duration, *warmup, *cold)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
		return
	}
	printTable(os.Stdout, res)
}

// target is one server binary to measure, with extra environment.
type target struct {
	bin string
	env []string
	log string // where to write its log too ("" = nowhere)
}

// results are the figures of one run.
type results struct {
	Machine string         `json:"machine"`
	Raw     []phase        `json:"raw_driver"`
	Floor   []phase        `json:"floor"` // net/http + go-sql-driver, no MCP work (floor.go)
	Servers []serverResult `json:"servers"`
}

type serverResult struct {
	Name        string  `json:"name"`
	BinaryBytes int64   `json:"binary_bytes"`
	StrippedMB  float64 `json:"stripped_mb,omitempty"`
	IdleRSSMiB  float64 `json:"idle_rss_mib"`
	LoadRSSMiB  float64 `json:"rss_mib_c64"`
	ColdMs      float64 `json:"cold_start_ms_median"`
	Phases      []phase `json:"phases"`
}

func run(ctx context.Context, log *slog.Logger, bins, profile string, d, warm time.Duration, cold int) (*results, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "doris-loadtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	servers := map[string]target{}
	var order []string
	if bins == "" {
		bin := filepath.Join(tmp, "doris-mcp-server")
		if err := goBuild(root, bin, "."); err != nil {
			return nil, err
		}
		servers["head"], order = target{bin: bin}, []string{"head"}
	} else {
		for _, item := range strings.Split(bins, ",") {
			name, spec, ok := strings.Cut(item, "=")
			if !ok {
				name, spec = filepath.Base(item), item
			}
			parts := strings.Split(spec, "@")
			servers[name] = target{bin: parts[0], env: parts[1:]}
			order = append(order, name)
		}
	}
	simBin := filepath.Join(tmp, "dorissim")
	if err := goBuild(root, simBin, "./doris/dorissim"); err != nil {
		return nil, err
	}

	db, err := mariadb.Start(ctx, mariadb.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	defer db.Stop()
	simulator, err := startSimulator(ctx, simBin, db, simConfig{profile: profile})
	if err != nil {
		return nil, err
	}
	defer simulator.stop()

	res := &results{Machine: machine()}
	fmt.Fprintf(os.Stderr, "raw driver: go-sql-driver -> simulator %s -> MariaDB\n", simulator.addr)
	for _, c := range []int{1, 32} {
		p, err := rawPhase(ctx, simulator.addr, c, d, warm)
		if err != nil {
			return nil, err
		}
		res.Raw = append(res.Raw, p)
	}
	if res.Floor, err = measureFloor(ctx, simulator, d, warm); err != nil {
		// A baseline, not the subject: the servers are still measured.
		fmt.Fprintln(os.Stderr, "loadtest: the transport floor could not be measured:", err)
	}
	for _, name := range order {
		sr, err := measureServer(ctx, name, servers[name], simulator, d, warm, cold)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res.Servers = append(res.Servers, *sr)
	}
	return res, nil
}

func measureServer(ctx context.Context, name string, tg target, simulator *simProc, d, warm time.Duration, cold int) (*serverResult, error) {
	bin := tg.bin
	sr := &serverResult{Name: name}
	if st, err := os.Stat(bin); err == nil {
		sr.BinaryBytes = st.Size()
	}
	fmt.Fprintf(os.Stderr, "server %s: %s\n", name, bin)
	srv, err := startServer(ctx, bin, simulator, tg.env, "")
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	cl := newClient(srv.url)
	// One discovery and one call set up the capability evidence and the
	// pool, as a Host's first steps do; then the server idles.
	if err := cl.warm(ctx); err != nil {
		return nil, err
	}
	time.Sleep(time.Second)
	sr.IdleRSSMiB = rssMiB(srv.cmd.Process.Pid)
	for _, c := range []int{1, 32, 64} {
		p, err := serverPhase(ctx, cl, srv.cmd.Process.Pid, c, d, warm)
		if err != nil {
			return nil, err
		}
		if c == 64 {
			sr.LoadRSSMiB = p.PeakRSSMiB
		}
		sr.Phases = append(sr.Phases, p)
	}
	if cold > 0 {
		ms, err := coldStarts(ctx, bin, cold)
		if err != nil {
			return nil, err
		}
		sr.ColdMs = ms
	}
	return sr, nil
}

func printTable(w io.Writer, r *results) {
	fmt.Fprintf(w, "machine: %s\n\n", r.Machine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "what\tc\tcalls\treq/s\tp50 ms\tp99 ms\tCPU µs/call\tpeak RSS MiB\t")
	row := func(what string, p phase) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.1f\t%.1f\t\n", what, p.Concurrency, p.Calls, p.RPS, p.P50Ms, p.P99Ms, p.CPUPerCallUs, p.PeakRSSMiB)
	}
	for _, p := range r.Raw {
		row("raw driver (client CPU)", p)
	}
	for _, p := range r.Floor {
		row("floor: net/http + driver (server CPU)", p)
	}
	for _, s := range r.Servers {
		for _, p := range s.Phases {
			row(s.Name+" (server CPU)", p)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, s := range r.Servers {
		fmt.Fprintf(w, "%s: idle RSS %.1f MiB, RSS under c=64 %.1f MiB, cold start median %.1f ms, binary %.1f MB\n",
			s.Name, s.IdleRSSMiB, s.LoadRSSMiB, s.ColdMs, float64(s.BinaryBytes)/1e6)
		for _, p := range s.Phases {
			for _, q := range r.Raw {
				if q.Concurrency == p.Concurrency {
					fmt.Fprintf(w, "  c=%d: p50 %.3f ms over the raw driver, %.2fx its req/s\n", p.Concurrency, p.P50Ms-q.P50Ms, p.RPS/q.RPS)
				}
			}
			for _, q := range r.Floor {
				if q.Concurrency == p.Concurrency {
					fmt.Fprintf(w, "  c=%d: p50 %.3f ms over the floor, CPU %.1f µs/call over it\n", p.Concurrency, p.P50Ms-q.P50Ms, p.CPUPerCallUs-q.CPUPerCallUs)
				}
			}
		}
	}
}

// runMode runs the load, soak or fault mode against one server binary,
// prints its figures and returns the exit code: 1 when the run could not
// be made, 2 when a check failed.
func runMode(ctx context.Context, log *slog.Logger, mode, bins string, d time.Duration, asJSON bool, serverLog string) int {
	var tg target
	if bins != "" {
		item, _, _ := strings.Cut(bins, ",")
		if _, spec, ok := strings.Cut(item, "="); ok {
			item = spec
		}
		parts := strings.Split(item, "@")
		tg = target{bin: parts[0], env: parts[1:]}
	}
	tg.log = serverLog
	var res any
	var checks []check
	var print func(io.Writer)
	var err error
	switch mode {
	case "load":
		var r *loadResult
		if r, err = runLoad(ctx, log, tg, cmp.Or(d, 60*time.Second)); err == nil {
			res, checks, print = r, r.Checks, func(w io.Writer) { printLoad(w, r) }
		}
	case "soak":
		var r *soakResult
		if r, err = runSoak(ctx, log, tg, cmp.Or(d, 10*time.Minute)); err == nil {
			res, checks, print = r, r.Checks, func(w io.Writer) { printSoak(w, r) }
		}
	case "fault":
		var r *faultResult
		if r, err = runFault(ctx, log, tg, cmp.Or(d, 15*time.Second)); err == nil {
			res, checks, print = r, r.Checks, func(w io.Writer) { printFault(w, r) }
		}
	default:
		err = fmt.Errorf("unknown -mode %q: want bench, load, soak or fault", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	} else {
		print(os.Stdout)
	}
	if failed(checks) {
		return 2
	}
	return 0
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run loadtest from inside the doris-mcp-server module")
	}
	return filepath.Dir(gomod), nil
}

// goBuild builds pkg into out as a release would: static, trimmed.
func goBuild(root, out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

func machine() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	model := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			_, model, _ = strings.Cut(l, ":")
			break
		}
	}
	n := strings.Count(string(b), "processor\t:")
	return fmt.Sprintf("%d x %s", n, strings.TrimSpace(model))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
