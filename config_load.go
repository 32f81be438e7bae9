package main

import (
	"errors"
	"io"
)

// loadConfig is the one way from parsed flags and the environment to a
// valid Config: the .env file (./.env, or --env-file), the environment,
// then the flags, in rising precedence, validated all at once. Serving,
// --check-config and doctor all go through it, so they judge the same
// configuration. An invalid one is printed to stderr, every problem and
// near-miss variable, and reported as errReported.
func loadConfig(flags *flagSet, env map[string]string, stderr io.Writer) (Config, []stray, error) {
	merged, err := withEnvFile(env, flags.envFile, flags.set["env-file"])
	if err != nil {
		return Config{}, nil, err
	}
	cfg := DefaultConfig()
	loadErrs := cfg.fromEnv(merged)
	loadErrs = append(loadErrs, flags.apply(&cfg)...)
	verr := errors.Join(append(loadErrs, cfg.Validate())...)
	strays := strayVariables(merged)
	if verr != nil {
		printProblems(stderr, verr)
		printTypos(stderr, strays)
		return Config{}, nil, errReported
	}
	return cfg, strays, nil
}
