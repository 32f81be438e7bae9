package main

import (
	"context"
	"io"
	"log/slog"
	"time"
)

type faultResult struct{ Checks []check }

func runFault(ctx context.Context, log *slog.Logger, tg target, d time.Duration) (*faultResult, error) {
	return nil, nil
}
func printFault(w io.Writer, r *faultResult) {}
