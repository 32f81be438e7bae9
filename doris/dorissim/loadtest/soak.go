package main

import (
	"context"
	"io"
	"log/slog"
	"time"
)

type soakResult struct{ Checks []check }

func runSoak(ctx context.Context, log *slog.Logger, tg target, d time.Duration) (*soakResult, error) {
	return nil, nil
}
func printSoak(w io.Writer, r *soakResult) {}
