//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// simProc is the simulator running as its own process.
type simProc struct {
	bin, profile string
	args         []string // everything needed to start it again on the same ports
	cmd          *exec.Cmd
	exited       chan struct{}
	addr, feHTTP string
	beHTTP       string // "" when the BE web server is off
}

// simConfig are the simulator's options beyond the bench's defaults.
type simConfig struct {
	profile string
	// be serves the BE web server (on a free port).
	be bool
	// holds are -hold MARKER=DURATION flags.
	holds []string
	// admins are the accounts with Doris ADMIN privilege ("" = root).
	admins string
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startSimulator(ctx context.Context, bin string, db *mariadb.Instance, cfg simConfig) (*simProc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	fe, err := freeAddr()
	if err != nil {
		return nil, err
	}
	be := ""
	if cfg.be {
		if be, err = freeAddr(); err != nil {
			return nil, err
		}
	}
	var users []string
	for u, p := range db.UserMap() {
		users = append(users, u+":"+p)
	}
	args := []string{"-listen", addr, "-fe-http", fe, "-be-http", be, "-upstream", db.Addr(),
		"-users", strings.Join(users, ","), "-profile", cfg.profile}
	if cfg.admins != "" {
		args = append(args, "-admins", cfg.admins)
	}
	for _, h := range cfg.holds {
		args = append(args, "-hold", h)
	}
	p := &simProc{bin: bin, profile: cfg.profile, args: args, addr: addr, feHTTP: fe, beHTTP: be}
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// start runs the simulator on its ports and waits until it listens.
func (p *simProc) start(ctx context.Context) error {
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stderr = nil
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd, p.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { cmd.Wait(); close(done) }(p.exited)
	if err := waitTCP(ctx, p.addr, 20*time.Second); err != nil {
		p.stop()
		return fmt.Errorf("simulator did not listen: %w", err)
	}
	return nil
}

func (p *simProc) stop() {
	p.cmd.Process.Signal(syscall.SIGCONT) // a frozen process cannot act on SIGTERM
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// crash kills the simulator with SIGKILL and waits until it is gone.
func (p *simProc) crash() {
	p.cmd.Process.Kill()
	<-p.exited
}

// signal sends sig to the simulator (SIGSTOP, SIGCONT, SIGUSR1, SIGUSR2).
func (p *simProc) signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

func waitTCP(ctx context.Context, addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serverProc is the MCP server under test, serving HTTP.
type serverProc struct {
	cmd     *exec.Cmd
	url     string
	log     *logScan // its stderr, scanned for warnings and errors
	logFile *os.File // the -server-log copy, if any
}

// serverEnv is the environment that points the server at the simulator
// with the demo's read-only account, everything else on its defaults.
func serverEnv(simulator *simProc, port string, extra []string) []string {
	host, sp, _ := net.SplitHostPort(simulator.addr)
	feHost, fePort, _ := net.SplitHostPort(simulator.feHTTP)
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"TRANSPORT=http", "SERVER_HOST=127.0.0.1", "SERVER_PORT=" + port,
		"DORIS_HOST=" + host, "DORIS_PORT=" + sp,
		"DORIS_USER=" + mariadb.ReaderUser, "DORIS_PASSWORD=" + mariadb.ReaderPassword,
		"DORIS_DATABASE=" + mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST=" + feHost, "DORIS_FE_HTTP_PORT=" + fePort,
	}
	return append(env, extra...)
}

// startServer starts bin on a free port and waits until /ready answers
// 200. With logPath set, the server's log is also written there.
func startServer(ctx context.Context, bin string, simulator *simProc, extraEnv []string, logPath string) (*serverProc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin)
	cmd.Env = serverEnv(simulator, port, extraEnv)
	cmd.Dir = os.TempDir() // no .env file is picked up
	cmd.SysProcAttr = childAttr()
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	// Logs are written, as in production; only warnings and errors are
	// kept, to report.
	ls := newLogScan()
	cmd.Stdout, cmd.Stderr = devnull, ls
	if logPath != "" {
		f, err := os.Create(logPath)
		if err != nil {
			return nil, err
		}
		ls.tee = f
	}
	p := &serverProc{cmd: cmd, url: "http://" + addr, log: ls}
	if f, ok := ls.tee.(*os.File); ok {
		p.logFile = f
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(p.url + "/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			return nil, fmt.Errorf("server not ready at %s", p.url)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *serverProc) pid() int { return p.cmd.Process.Pid }

func (p *serverProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
	if p.logFile != nil {
		p.logFile.Close()
	}
}

// cpuTicks is a process's user plus system CPU time, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; fields count from after ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, errors.New("short /proc stat")
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s, nil
}

// clockTick is the kernel's USER_HZ (100 on Linux).
const clockTick = 10 * time.Millisecond

func rssMiB(pid int) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// selfCPU is this process's own CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
