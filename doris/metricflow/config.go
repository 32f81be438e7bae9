package metricflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Config is the MetricFlow part of the server configuration (the
// METRICFLOW_* variables of the reference server). Use DefaultConfig.
type Config struct {
	Enabled bool // METRICFLOW_ENABLED
	// CommandJSON is METRICFLOW_PROVIDER_COMMAND_JSON: a JSON array of
	// strings, the first an absolute executable. It is kept as given and
	// parsed by Command, so argument boundaries survive exactly.
	CommandJSON      string
	ProjectDirectory string        // METRICFLOW_PROJECT_DIRECTORY: absolute; empty keeps the server's
	Timeout          time.Duration // METRICFLOW_TIMEOUT_SECONDS: 1..120 s
	MaxOutputBytes   int           // METRICFLOW_MAX_OUTPUT_BYTES: 1024..8388608
}

// DefaultConfig returns the reference server's defaults: disabled.
func DefaultConfig() Config {
	return Config{Timeout: 30 * time.Second, MaxOutputBytes: 2 << 20}
}

// Bounds of the command.
const (
	maxArgs     = 64
	maxArgBytes = 4096
)

// Command parses CommandJSON: a non-empty JSON array of non-empty strings
// without NUL bytes, the first an absolute path.
func (c *Config) Command() ([]string, error) {
	var cmd []string
	dec := json.NewDecoder(strings.NewReader(c.CommandJSON))
	if err := dec.Decode(&cmd); err != nil || dec.More() {
		return nil, errors.New("is not a JSON array of strings")
	}
	if len(cmd) == 0 || len(cmd) > maxArgs {
		return nil, fmt.Errorf("must hold 1..%d strings", maxArgs)
	}
	for i, a := range cmd {
		if a == "" || len(a) > maxArgBytes || strings.ContainsRune(a, 0) {
			return nil, fmt.Errorf("element %d is empty, longer than %d bytes or contains NUL", i, maxArgBytes)
		}
	}
	if !filepath.IsAbs(cmd[0]) {
		return nil, fmt.Errorf("the executable %q is not an absolute path", cmd[0])
	}
	return cmd, nil
}

// Validate returns every problem of c, naming the variable of each. It
// reads nothing; CheckFiles looks at the executable and the directory.
func (c *Config) Validate() []error {
	var errs []error
	if c.Timeout < time.Second || c.Timeout > 120*time.Second {
		errs = append(errs, fmt.Errorf("METRICFLOW_TIMEOUT_SECONDS: %s is outside 1..120 seconds", c.Timeout))
	}
	if c.MaxOutputBytes < 1024 || c.MaxOutputBytes > 8<<20 {
		errs = append(errs, fmt.Errorf("METRICFLOW_MAX_OUTPUT_BYTES: %d is outside 1024..8388608", c.MaxOutputBytes))
	}
	if c.ProjectDirectory != "" && !filepath.IsAbs(c.ProjectDirectory) {
		errs = append(errs, fmt.Errorf("METRICFLOW_PROJECT_DIRECTORY: %q is not an absolute path", c.ProjectDirectory))
	}
	if !c.Enabled {
		return errs
	}
	if strings.TrimSpace(c.CommandJSON) == "" {
		errs = append(errs, fmt.Errorf("METRICFLOW_PROVIDER_COMMAND_JSON: %s: METRICFLOW_ENABLED needs the provider command", ReasonNotConfigured))
	} else if _, err := c.Command(); err != nil {
		errs = append(errs, fmt.Errorf("METRICFLOW_PROVIDER_COMMAND_JSON: %s: %v", ReasonCommandInvalid, err))
	}
	return errs
}

// CheckFiles reports, when enabled, an executable that is not an
// executable regular file and a project directory that is not a
// directory, so that the server does not start with a provider it can
// never run.
func (c *Config) CheckFiles() []error {
	if !c.Enabled {
		return nil
	}
	var errs []error
	if cmd, err := c.Command(); err == nil {
		fi, err := os.Stat(cmd[0])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("METRICFLOW_PROVIDER_COMMAND_JSON: %s: %s does not exist", ReasonCommandInvalid, cmd[0]))
		case err != nil:
			errs = append(errs, fmt.Errorf("METRICFLOW_PROVIDER_COMMAND_JSON: %s: %s cannot be inspected", ReasonCommandInvalid, cmd[0]))
		case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
			errs = append(errs, fmt.Errorf("METRICFLOW_PROVIDER_COMMAND_JSON: %s: %s is not an executable file", ReasonCommandInvalid, cmd[0]))
		}
	}
	if c.ProjectDirectory != "" {
		if fi, err := os.Stat(c.ProjectDirectory); err != nil || !fi.IsDir() {
			errs = append(errs, fmt.Errorf("METRICFLOW_PROJECT_DIRECTORY: %s is not a directory", c.ProjectDirectory))
		}
	}
	return errs
}
