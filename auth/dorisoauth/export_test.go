package dorisoauth

import (
	"context"
	"time"
)

// SyncNow pulls the ledger from every peer now (tests).
func (s *Server) SyncNow() { s.peers.pullAll(context.Background(), 5*time.Second) }

// ParseForm, ParseBearer and ParseScope expose the parsers to the fuzz
// tests.
func ParseForm(s string) (map[string]string, error) { return parseForm(s) }
func ParseBearer(v string) (string, error)          { return parseBearer(v) }
func ParseScope(s string) ([]string, error)         { return parseScope(s) }
