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
	cmd          *exec.Cmd
	addr, feHTTP string
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startSimulator(ctx context.Context, bin string, db *mariadb.Instance, profile string) (*simProc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	fe, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var users []string
	for u, p := range db.UserMap() {
		users = append(users, u+":"+p)
	}
	cmd := exec.Command(bin, "-listen", addr, "-fe-http", fe, "-be-http", "", "-upstream", db.Addr(),
		"-users", strings.Join(users, ","), "-profile", profile)
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &simProc{cmd: cmd, addr: addr, feHTTP: fe}
	if err := waitTCP(ctx, addr, 20*time.Second); err != nil {
		p.stop()
		return nil, fmt.Errorf("simulator did not listen: %w", err)
	}
	return p, nil
}

func (p *simProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

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
	cmd *exec.Cmd
	url string
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

func startServer(ctx context.Context, bin string, simulator *simProc, extraEnv []string) (*serverProc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin)
	cmd.Env = serverEnv(simulator, port, extraEnv)
	cmd.Dir = os.TempDir() // no .env file is picked up
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = devnull, devnull // logs are written, as in production, and dropped
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serverProc{cmd: cmd, url: "http://" + addr}
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
