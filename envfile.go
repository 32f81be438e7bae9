package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// withEnvFile returns env overlaid with the variables of an env file,
// without overriding anything env already sets. With explicit false, a
// missing ./.env is simply skipped; an explicitly named file must exist.
func withEnvFile(env map[string]string, path string, explicit bool) (map[string]string, error) {
	if !explicit {
		path = ".env"
	}
	f, err := os.Open(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return env, nil
		}
		return nil, fmt.Errorf("env file: %w", err)
	}
	defer f.Close()
	fileVars, err := parseEnvFile(bufio.NewScanner(f))
	if err != nil {
		return nil, fmt.Errorf("env file %s: %w", path, err)
	}
	merged := make(map[string]string, len(env)+len(fileVars))
	for k, v := range fileVars {
		merged[k] = v
	}
	for k, v := range env {
		merged[k] = v // set variables win over the file
	}
	return merged, nil
}

// parseEnvFile reads KEY=VALUE lines: blank lines and # comments are
// skipped, an "export " prefix is allowed, and a value in matching single
// or double quotes is taken literally without them. No expansion happens.
func parseEnvFile(sc *bufio.Scanner) (map[string]string, error) {
	out := map[string]string{}
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"'") {
			return nil, fmt.Errorf("line %d is not KEY=VALUE", n)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		out[k] = v
	}
	return out, sc.Err()
}
