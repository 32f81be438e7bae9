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
	server   string // the mariadbd binary
	procMu   sync.Mutex
	proc     *process // the running mariadbd; replaced by Restart
	root     *sql.DB
	log      *slog.Logger
	stopOnce sync.Once
	stopErr  error
	// owner holds an exclusive lock on the directory's owner.lock for as
	// long as this process owns the instance, so that another process
	// (another test binary, possibly in another PID namespace) never takes
	// the directory for a stale one.
	owner *os.File
}

// process is one run of mariadbd.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	exitErr error // set before exited closes
}

// User is a demo account.
type User struct {
	Name, Password string
	// Admin marks accounts with full privileges (Doris ADMIN in the sim).
	Admin bool
}

const dirPrefix = "doris-mariadb-"

// PathVariable names the variable that, when set, is the only list of directories searched for
// the MariaDB binaries (PATH and the usual directories are not): a test
// hides MariaDB by pointing it at an empty directory.
const PathVariable = "DORIS_MCP_MARIADB_PATH"

// binaries returns the paths of mariadbd and mariadb-install-db.
func binaries() (server, install string, err error) {
	dirs := []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}
	onlyDirs, only := os.LookupEnv(PathVariable)
	if only {
		dirs = filepath.SplitList(onlyDirs)
	}
	find := func(names ...string) string {
		for _, n := range names {
			if !only {
				if p, err := exec.LookPath(n); err == nil {
					return p
				}
			}
			for _, d := range dirs {
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
	owner, err := lockOwner(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// Each instance has its own tmpdir: a mariadbd that starts removes
	// the #sql temporary files it finds in its tmpdir, so instances that
	// share /tmp (other test binaries, other users) delete each other's
	// in-use temporary tables, which fails or crashes their queries.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	t0 := time.Now()
	inst := exec.CommandContext(ctx, install, "--no-defaults", "--auth-root-authentication-method=normal",
		"--datadir="+data, "--innodb-log-file-size=8M", "--tmpdir="+tmp)
	inst.Dir = dir
	if out, err := inst.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("mariadb: mariadb-install-db: %w\n%s", err, tail(out, 2000))
	}
	log.Debug("mariadb installed", "dir", dir, "took", time.Since(t0))

	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		in, err := launch(ctx, server, dir, opts.RootPassword, log)
		if err == nil {
			in.owner = owner
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
	owner.Close()
	return nil, lastErr
}

// launch starts mariadbd once on a freshly chosen port and waits for it.
func launch(ctx context.Context, server, dir, rootPW string, log *slog.Logger) (*Instance, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	in := &Instance{dir: dir, port: port, rootPW: rootPW, server: server, log: log}
	// A fresh install accepts root without a password.
	db, err := in.spawn(ctx, "")
	if err != nil {
		return nil, err
	}
	in.root = db
	return in, nil
}

// spawn starts mariadbd on the instance's directory, port and socket and
// waits until root logs in over the socket with password pw. It returns
// that connection pool.
func (in *Instance) spawn(ctx context.Context, pw string) (*sql.DB, error) {
	args := []string{"--no-defaults"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	dir := in.dir
	args = append(args, "--datadir="+filepath.Join(dir, "data"), "--socket="+filepath.Join(dir, "sock"),
		"--port="+strconv.Itoa(in.port), "--bind-address=127.0.0.1", "--skip-name-resolve", "--tmpdir="+filepath.Join(dir, "tmp"),
		"--innodb-buffer-pool-size=32M", "--performance-schema=OFF",
		"--pid-file="+filepath.Join(dir, "mariadbd.pid"), "--log-error="+filepath.Join(dir, "error.log"))
	cmd := exec.Command(in.server, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mariadb: start mariadbd: %w", err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	in.procMu.Lock()
	in.proc = p
	in.procMu.Unlock()
	sock := filepath.Join(dir, "sock")
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("mariadb: mariadbd exited during start (%v): %s", p.exitErr, in.errorLogTail())
		case <-ctx.Done():
			in.kill()
			<-p.exited
			return nil, fmt.Errorf("mariadb: mariadbd did not become ready: %w: %s", ctx.Err(), in.errorLogTail())
		case <-tick.C:
		}
		if _, err := os.Stat(sock); err != nil {
			continue
		}
		db := openDB("unix", sock, "root", pw, "")
		err := db.PingContext(ctx)
		if err == nil {
			return db, nil
		}
		db.Close()
	}
}

// Restart stops mariadbd as an operator's restart does (SIGTERM: open
// connections are dropped, running statements end), keeps it down for
// down, and starts it again on the same port, socket and data directory,
// so that everything created before the restart is still there. It
// returns once root can log in again. Root() stays usable (its
// connections reconnect). Do not call it concurrently with Stop.
func (in *Instance) Restart(ctx context.Context, down time.Duration) error {
	in.procMu.Lock()
	p := in.proc
	in.procMu.Unlock()
	if p == nil {
		return fmt.Errorf("mariadb: restart: not running")
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	select {
	case <-time.After(down):
	case <-ctx.Done():
		return ctx.Err()
	}
	// The port was just released; another process may hold it for a
	// moment (it is never handed out by freePort while it is in use).
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var db *sql.DB
		sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		db, err = in.spawn(sctx, in.rootPW)
		cancel()
		if err == nil {
			db.Close()
			in.log.Info("mariadb restarted", "addr", in.Addr())
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
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
		in.procMu.Lock()
		p := in.proc
		in.procMu.Unlock()
		if p != nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(10 * time.Second):
				in.kill()
				<-p.exited
			}
		}
		if err := os.RemoveAll(in.dir); err != nil {
			in.stopErr = err
		}
		if in.owner != nil {
			in.owner.Close() // releases the lock
		}
	})
	return in.stopErr
}

func (in *Instance) kill() {
	in.procMu.Lock()
	p := in.proc
	in.procMu.Unlock()
	if p != nil {
		_ = p.cmd.Process.Kill()
	}
}

// lockOwner creates dir/owner.lock and holds an exclusive lock on it.
func lockOwner(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "owner.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("mariadb: lock %s: %w", dir, err)
	}
	return f, nil
}

// removeStale deletes data directories left behind by dead processes (a
// test binary killed before it could call Stop). A directory is stale when
// nobody holds its owner lock: a lock, unlike a pid, means the same thing
// to every process on the machine, whatever PID namespace it runs in. A
// directory without a lock file is being created, or predates locks: it
// is left alone unless it is a day old.
func removeStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, d := range dirs {
		f, err := os.OpenFile(filepath.Join(d, "owner.lock"), os.O_RDWR, 0)
		if err != nil {
			if st, serr := os.Stat(d); serr == nil && time.Since(st.ModTime()) > 24*time.Hour {
				os.RemoveAll(d)
			}
			continue
		}
		if tryLock(f) != nil {
			f.Close() // its owner is alive
			continue
		}
		// The owner is gone. Its server may be too (it dies with its
		// parent); if it is not, stop it, but only a process that really
		// is this directory's mariadbd.
		if mp, err := os.ReadFile(filepath.Join(d, "mariadbd.pid")); err == nil {
			if sp, err := strconv.Atoi(strings.TrimSpace(string(mp))); err == nil && sp > 0 && isServerOf(sp, d) {
				_ = killPID(sp)
			}
		}
		os.RemoveAll(d)
		f.Close()
	}
}

// isServerOf reports whether pid is a mariadbd serving the data under dir.
func isServerOf(pid int, dir string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && strings.Contains(string(b), "mariadbd") && strings.Contains(string(b), dir)
}
