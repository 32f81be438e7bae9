package doris

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// httpClient talks to FE and BE web servers. Destinations come only from
// configuration (never from a request), link-local and metadata addresses
// are refused at dial time, redirects are not followed, and responses are
// capped.
type httpClient struct {
	c        *http.Client
	maxBytes int64
	feBase   string   // http://host:port of the FE, "" when not configured
	beBases  []string // http://host:port of each configured BE
}

func newHTTPClient(cfg *Config) (*httpClient, error) {
	dialer := &net.Dialer{
		Timeout: cfg.HTTPConnectTimeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return err
			}
			if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
				return fmt.Errorf("doris: refusing HTTP to %s (link-local, multicast or unspecified address)", ip)
			}
			return nil
		},
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		ResponseHeaderTimeout: cfg.HTTPReadTimeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    false,
		Proxy:                 nil, // never route Doris traffic through an environment proxy
	}
	h := &httpClient{
		c: &http.Client{
			Transport: tr,
			Timeout:   cfg.HTTPTotalTimeout,
		},
		maxBytes: int64(cfg.HTTPMaxResponseBytes),
	}
	h.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if cfg.FEHTTPPort > 0 {
		host := cfg.FEHTTPHost
		if host == "" {
			host = cfg.Host
		}
		h.feBase = "http://" + net.JoinHostPort(host, strconv.Itoa(cfg.FEHTTPPort))
	}
	for _, b := range cfg.BEHosts {
		host := b
		if hh, p, err := net.SplitHostPort(b); err == nil {
			h.beBases = append(h.beBases, "http://"+net.JoinHostPort(hh, p))
			continue
		}
		h.beBases = append(h.beBases, "http://"+net.JoinHostPort(host, strconv.Itoa(cfg.BEWebPort)))
	}
	return h, nil
}

// HTTPStatusError reports a non-200 HTTP answer.
type HTTPStatusError struct{ Status int }

func (e *HTTPStatusError) Error() string { return fmt.Sprintf("doris: HTTP status %d", e.Status) }

var ErrTooLarge = errors.New("doris: HTTP response exceeds DORIS_HTTP_MAX_RESPONSE_BYTES")

// get fetches base+path with basic auth and returns the capped body.
func (h *httpClient) get(ctx context.Context, base, path, user, password string) ([]byte, error) {
	if base == "" {
		return nil, errors.New("doris: HTTP endpoint not configured")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, h.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > h.maxBytes {
		return nil, ErrTooLarge
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &HTTPStatusError{Status: resp.StatusCode}
	}
	return body, nil
}

// feEnvelope is the FE REST envelope {"msg","code","data","count"}.
type feEnvelope struct {
	Msg  string          `json:"msg"`
	Code int             `json:"code"`
	Data json.RawMessage `json:"data"`
}

// feGet fetches an FE REST endpoint and unwraps its envelope; a non-zero
// code is an error whose Status is the code.
func (h *httpClient) feGet(ctx context.Context, path, user, password string) (json.RawMessage, error) {
	body, err := h.get(ctx, h.feBase, path, user, password)
	if err != nil {
		return nil, err
	}
	var env feEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("doris: FE response is not the REST envelope: %w", err)
	}
	if env.Code != 0 {
		return nil, &HTTPStatusError{Status: env.Code}
	}
	return env.Data, nil
}

// The FE and BE web servers, as handlers reach them: always as the call's
// route, whose credential never leaves the core.

// FEBase is the FE web server's base URL ("" when DORIS_FE_HTTP_PORT is
// unset).
func (r *Runtime) FEBase() string { return r.http.feBase }

// BEBases are the BE web servers' base URLs (none when no BE port is set).
func (r *Runtime) BEBases() []string { return r.http.beBases }

// HTTPMaxBytes is the cap on one FE or BE HTTP answer
// (DORIS_HTTP_MAX_RESPONSE_BYTES).
func (r *Runtime) HTTPMaxBytes() int64 { return r.http.maxBytes }

// FEGet fetches an FE REST endpoint as the route's account and unwraps
// the REST envelope.
func (r *Runtime) FEGet(ctx context.Context, rt *Route, path string) (json.RawMessage, error) {
	return r.http.feGet(ctx, path, rt.user, rt.password)
}

// NodeGet fetches path from one web server: an FE ("fe") as the route's
// account, a BE without credentials (BE web servers serve /metrics to
// anyone who reaches them).
func (r *Runtime) NodeGet(ctx context.Context, rt *Route, typ, base, path string) ([]byte, error) {
	if typ == "fe" {
		return r.http.get(ctx, base, path, rt.user, rt.password)
	}
	return r.http.get(ctx, base, path, "", "")
}
