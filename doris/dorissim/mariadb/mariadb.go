// Package mariadb starts a throwaway MariaDB server for tests and demos of the
// Doris simulator.
//
// An Instance lives in a fresh data directory (under /dev/shm when it exists),
// listens on a free loopback port, carries the demo schema (see Demo* and the
// account constants) and is removed completely by Stop. Nothing here reads any
// file outside the instance's own directory.
package mariadb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Demo accounts created by Start (passwords are fixed; the root password is
// Options.RootPassword).
const (
	DefaultRootPassword = "rootpw"

	ReaderUser     = "mcp_reader"
	ReaderPassword = "readerpw"
	WriterUser     = "mcp_writer"
	WriterPassword = "writerpw"

	// SimSchema is the upstream schema the Doris simulator owns. The reader
	// and the writer may SELECT from it.
	SimSchema = "__doris_sim"
)

// Options configure Start. The zero value is usable.
type Options struct {
	// RootPassword for root@'%' and root@localhost; default "rootpw".
	RootPassword string
	// BaseDir is where the data directory is created; default /dev/shm when
	// it exists, else os.TempDir().
	BaseDir string
	// SkipDemo leaves out the demo databases and the demo users.
	SkipDemo bool
	// StartTimeout bounds install + start + readiness; default 60s.
	StartTimeout time.Duration
	// Logger receives progress messages; default slog.Default().
	Logger *slog.Logger
}

// Instance is one running throwaway MariaDB.
type Instance struct {
	dir      string
	port     int
	rootPW   string
	cmd      *exec.Cmd
	exited   chan struct{}
	exitErr  error
	root     *sql.DB
	log      *slog.Logger
	stopOnce sync.Once
	stopErr  error
}

// User is a demo account.
type User struct {
	Name, Password string
	// Admin marks accounts with full privileges (Doris ADMIN in the sim).
	Admin bool
}

const dirPrefix = "doris-mariadb-"

// binaries returns the paths of mariadbd and mariadb-install-db.
func binaries() (server, install string, err error) {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			for _, d := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
				p := filepath.Join(d, n)
				if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return p
				}
			}
		}
		return ""
	}
	server = find("mariadbd", "mysqld")
	install = find("mariadb-install-db", "mysql_install_db")
	var missing []string
	if server == "" {
		missing = append(missing, "mariadbd")
	}
	if install == "" {
		missing = append(missing, "mariadb-install-db")
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("mariadb: %s not found in PATH, /usr/sbin or /usr/bin "+
			"(install with: apt-get install -y --no-install-recommends mariadb-server-core mariadb-client-core)",
			strings.Join(missing, " and "))
	}
	return server, install, nil
}

// Available reports whether the MariaDB server binaries exist (nil) or why
// they do not.
func Available() error {
	_, _, err := binaries()
	return err
}

// Start installs a fresh data directory, starts mariadbd on a free loopback
// port, waits until it accepts connections, sets the root password and (unless
// opts.SkipDemo) loads the demo schema and accounts.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	server, install, err := binaries()
	if err != nil {
		return nil, err
	}
	if opts.RootPassword == "" {
		opts.RootPassword = DefaultRootPassword
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	base := opts.BaseDir
	if base == "" {
		base = os.TempDir()
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			base = "/dev/shm"
		}
	}
	removeStale(base)
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	_ = os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	data := filepath.Join(dir, "data")
	t0 := time.Now()
	inst := exec.CommandContext(ctx, install, "--no-defaults", "--auth-root-authentication-method=normal",
		"--datadir="+data, "--innodb-log-file-size=8M")
	inst.Dir = dir
	if out, err := inst.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("mariadb: mariadb-install-db: %w\n%s", err, tail(out, 2000))
	}
	log.Debug("mariadb installed", "dir", dir, "took", time.Since(t0))

	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		in, err := launch(ctx, server, dir, data, opts.RootPassword, log)
		if err == nil {
			if err = in.setup(ctx, !opts.SkipDemo); err != nil {
				in.Stop()
				return nil, err
			}
			log.Info("mariadb ready", "addr", in.Addr(), "dir", dir, "took", time.Since(t0).Round(time.Millisecond))
			return in, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

// launch starts mariadbd once on a freshly chosen port and waits for it.
func launch(ctx context.Context, server, dir, data, rootPW string, log *slog.Logger) (*Instance, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--no-defaults"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	args = append(args, "--datadir="+data, "--socket="+filepath.Join(dir, "sock"),
		"--port="+strconv.Itoa(port), "--bind-address=127.0.0.1", "--skip-name-resolve",
		"--innodb-buffer-pool-size=32M", "--performance-schema=OFF",
		"--pid-file="+filepath.Join(dir, "mariadbd.pid"), "--log-error="+filepath.Join(dir, "error.log"),
		// Temporary tables in the instance's own directory: a shared /tmp
		// that another process cleans would fail queries at random.
		"--tmpdir="+dir)
	cmd := exec.Command(server, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mariadb: start mariadbd: %w", err)
	}
	in := &Instance{dir: dir, port: port, rootPW: rootPW, cmd: cmd, exited: make(chan struct{}), log: log}
	go func() {
		in.exitErr = cmd.Wait()
		close(in.exited)
	}()
	// Wait for the socket to accept root without a password (fresh install).
	sock := filepath.Join(dir, "sock")
	deadline := time.NewTicker(50 * time.Millisecond)
	defer deadline.Stop()
	for {
		select {
		case <-in.exited:
			return nil, fmt.Errorf("mariadb: mariadbd exited during start (%v): %s", in.exitErr, in.errorLogTail())
		case <-ctx.Done():
			in.kill()
			return nil, fmt.Errorf("mariadb: mariadbd did not become ready: %w: %s", ctx.Err(), in.errorLogTail())
		case <-deadline.C:
		}
		if _, err := os.Stat(sock); err != nil {
			continue
		}
		db := openDB("unix", sock, "root", "", "")
		err := db.PingContext(ctx)
		if err == nil {
			in.root = db
			return in, nil
		}
		db.Close()
	}
}

func (in *Instance) errorLogTail() string {
	b, _ := os.ReadFile(filepath.Join(in.dir, "error.log"))
	return string(tail(b, 2000))
}

func tail(b []byte, n int) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("mariadb: pick a port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// openDB builds a *sql.DB with the driver's Config (no DSN strings).
func openDB(network, addr, user, pw, db string) *sql.DB {
	c := mysql.NewConfig()
	c.Net = network
	c.Addr = addr
	c.User = user
	c.Passwd = pw
	c.DBName = db
	c.InterpolateParams = true
	c.MultiStatements = true
	c.AllowNativePasswords = true
	c.Timeout = 5 * time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		panic(err) // only on an invalid static config
	}
	d := sql.OpenDB(conn)
	d.SetMaxOpenConns(4)
	d.SetConnMaxIdleTime(time.Minute)
	return d
}

// setup secures the accounts and loads the demo data.
func (in *Instance) setup(ctx context.Context, demo bool) error {
	pw := quote(in.rootPW)
	stmts := []string{
		"DROP USER IF EXISTS ''@'localhost'",
		"DELETE FROM mysql.global_priv WHERE User=''",
		"FLUSH PRIVILEGES",
		"ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD(" + pw + ")",
		"CREATE OR REPLACE USER 'root'@'127.0.0.1' IDENTIFIED BY " + pw,
		"GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION",
		"CREATE OR REPLACE USER 'root'@'%' IDENTIFIED BY " + pw,
		"GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION",
		"DROP USER IF EXISTS 'root'@'::1'",
		"DROP DATABASE IF EXISTS test",
		"REVOKE ALL PRIVILEGES ON `test`.* FROM PUBLIC",
		"REVOKE ALL PRIVILEGES ON `test\\_%`.* FROM PUBLIC",
		"FLUSH PRIVILEGES",
	}
	for _, s := range stmts {
		if _, err := in.root.ExecContext(ctx, s); err != nil {
			// Some of these are best effort on other MariaDB versions.
			in.log.Debug("mariadb setup statement failed", "sql", s, "err", err)
		}
	}
	// Reopen root over the socket with the new password.
	in.root.Close()
	in.root = openDB("unix", filepath.Join(in.dir, "sock"), "root", in.rootPW, "")
	if err := in.root.PingContext(ctx); err != nil {
		return fmt.Errorf("mariadb: root login after password change: %w", err)
	}
	if !demo {
		return nil
	}
	t0 := time.Now()
	for _, s := range demoStatements(time.Now()) {
		if _, err := in.root.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("mariadb: demo schema: %w\nstatement: %.300s", err, s)
		}
	}
	in.log.Debug("mariadb demo schema loaded", "took", time.Since(t0))
	return nil
}

func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// Addr is the TCP address, "127.0.0.1:PORT".
func (in *Instance) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(in.port)) }

// Port is the TCP port.
func (in *Instance) Port() int { return in.port }

// Socket is the path of the unix socket.
func (in *Instance) Socket() string { return filepath.Join(in.dir, "sock") }

// RootPassword is the password of root@'%' and root@localhost.
func (in *Instance) RootPassword() string { return in.rootPW }

// Root is a connection pool logged in as root over the unix socket
// (multi-statements allowed). Do not Close it; Stop does.
func (in *Instance) Root() *sql.DB { return in.root }

// Exec runs statements as root, in order, stopping at the first error.
func (in *Instance) Exec(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := in.root.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("mariadb: %w (statement: %.200s)", err, s)
		}
	}
	return nil
}

// Users returns the accounts created by Start: root (admin), mcp_reader and
// mcp_writer.
func (in *Instance) Users() []User {
	return []User{
		{Name: "root", Password: in.rootPW, Admin: true},
		{Name: ReaderUser, Password: ReaderPassword},
		{Name: WriterUser, Password: WriterPassword},
	}
}

// UserMap returns Users as user -> password, the form the simulator takes.
func (in *Instance) UserMap() map[string]string {
	m := map[string]string{}
	for _, u := range in.Users() {
		m[u.Name] = u.Password
	}
	return m
}

// Stop shuts the server down and removes its directory. It is safe to call
// more than once.
func (in *Instance) Stop() error {
	in.stopOnce.Do(func() {
		if in.root != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			// The directory is deleted anyway: skip the slow clean shutdown work.
			_, _ = in.root.ExecContext(ctx, "SET GLOBAL innodb_fast_shutdown = 2")
			cancel()
			in.root.Close()
		}
		if in.cmd != nil && in.cmd.Process != nil {
			_ = in.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-in.exited:
			case <-time.After(10 * time.Second):
				in.kill()
				<-in.exited
			}
		}
		if err := os.RemoveAll(in.dir); err != nil {
			in.stopErr = err
		}
	})
	return in.stopErr
}

func (in *Instance) kill() {
	if in.cmd != nil && in.cmd.Process != nil {
		_ = in.cmd.Process.Kill()
	}
}

// removeStale deletes data directories left behind by dead processes (a test
// binary that was killed before it could call Stop).
func removeStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "owner.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if mp, err := os.ReadFile(filepath.Join(d, "mariadbd.pid")); err == nil {
			if sp, err := strconv.Atoi(strings.TrimSpace(string(mp))); err == nil && sp > 0 && processAlive(sp) {
				_ = syscall.Kill(sp, syscall.SIGKILL)
			}
		}
		_ = os.RemoveAll(d)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
